// The system tool settings form in the browser (system-tool-policy-story.md, Settings → Tools): limits read and
// typed with units, an empty limit refused with the previous value kept, and what switching file tools off means.
import { expect, test } from "./fixtures";
import { signInAs } from "./helpers";
import type { Page } from "@playwright/test";

/**
 * The whole draft in the JSON editor. CodeMirror renders only the lines in view, so a long document (other spec files
 * in this worker's app add agents) puts the system section outside the DOM: read the editor's state instead.
 */
const draftText = (page: Page) =>
  page.evaluate(() => {
    type Tiled = { cmTile?: { root?: { view?: { state: { doc: { toString(): string } } } } } };
    const content = document.querySelector('[aria-label="Policy document (JSON)"]') as (Element & Tiled) | null;
    return content?.cmTile?.root?.view?.state.doc.toString() ?? "";
  });

test.describe("system tool settings form", () => {
  test("Y8/Y9 an empty limit is refused and the value kept; a size with a unit becomes the draft's bytes", async ({
    page,
  }) => {
    await signInAs(page, "admin@example.com");
    await page.goto("/admin/policy");
    const section = page.locator("section[aria-labelledby=system-settings]");
    await expect(
      section.getByText(
        "Off: read, write, edit and apply_patch stop in every chat, for every agent and mode. ask_user keeps working.",
      ),
    ).toBeVisible();
    await expect(section.getByRole("checkbox", { name: "File tools (fs) on" })).toHaveAccessibleDescription(
      /ask_user keeps working/,
    );

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
    await expect.poll(() => draftText(page)).toContain('"maxWriteBytes": 1572864');
    expect(await draftText(page)).toContain('"maxReadBytes": 524288');
  });
});
