// The system tool settings form in the browser (system-tool-policy-story.md, Settings → Tools): limits read and
// typed with units, an empty limit refused with the previous value kept, and what switching file tools off means.
import { expect, test } from "./fixtures";
import { signInAs } from "./helpers";

test.describe("system tool settings form", () => {
  test("Y8/Y9 an empty limit is refused and the value kept; a size with a unit becomes the draft's bytes", async ({ page }) => {
    await signInAs(page, "admin@example.com");
    await page.goto("/admin/policy");
    const section = page.locator("section[aria-labelledby=system-settings]");
    await expect(section.getByText("Off: read, write, edit and apply_patch stop in every chat, for every agent and mode. ask_user keeps working.")).toBeVisible();
    await expect(section.getByRole("checkbox", { name: "File tools (fs) on" })).toHaveAccessibleDescription(/ask_user keeps working/);

    const read = section.getByLabel("Max read size (fs)");
    await expect(read).toHaveValue("512 KiB");
    await read.fill("");
    await read.press("Enter");
    await expect(section.getByRole("alert")).toHaveText("a limit cannot be empty; kept 512 KiB");
    await expect(read).toHaveValue("512 KiB");
    await expect(page.getByText("No changes")).toBeVisible();

    const write = section.getByLabel("Max write size (fs)");
    await write.fill("1.5 MiB");
    await write.press("Enter");
    await expect(write).toHaveValue("1536 KiB");
    await expect(write).toHaveAttribute("title", "1,572,864 bytes");
    await expect(page.getByText("Unsaved draft")).toBeVisible();
    await page.getByRole("tab", { name: "JSON" }).click();
    await expect(page.getByLabel("Policy document (JSON)")).toContainText('"maxWriteBytes": 1572864');
    await expect(page.getByLabel("Policy document (JSON)")).toContainText('"maxReadBytes": 524288');
  });
});
