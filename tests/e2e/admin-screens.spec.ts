// Screenshots of the admin pages at desktop and phone width, light and dark, for review (in playwright-report/screens,
// which test runs do not wipe); also checks that the pages render their main parts at each size.
import { expect, test } from "./fixtures";
import { signInAs } from "./helpers";

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

for (const scheme of ["light", "dark"] as const) {
  for (const size of SIZES) {
    test(`admin pages render at ${size.name} width in ${scheme} mode`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: size.width, height: size.height });
      await signInAs(page, "admin@example.com");
      // Something in the audit log to show, whatever ran before.
      const current = await (await page.request.get("/api/policy")).json();
      expect(
        (
          await page.request.put("/api/policy", {
            data: { baseVersion: current.version, document: current.document, comment: "screenshot run" },
          })
        ).status(),
      ).toBe(200);
      await page.goto("/admin/policy");
      await expect(page.getByRole("table", { name: "Effective tool policy per mode" })).toBeVisible();
      await page.getByRole("button", { name: /^read in chat_safe:/ }).click();
      await expect(page.getByTestId("cell-layer")).toContainText("mode");
      await page.screenshot({
        path: `playwright-report/screens/policy-${size.name}-${scheme}.png`,
        fullPage: size.name === "desktop",
      });
      await page.goto("/admin/audit");
      await expect(page.getByRole("table", { name: "Audit log" })).toBeVisible();
      await page.getByRole("button", { name: "Verify chain" }).click();
      await expect(page.getByTestId("verify-result")).toContainText("Chain intact");
      await page.screenshot({ path: `playwright-report/screens/audit-${size.name}-${scheme}.png`, fullPage: false });
      await page.goto("/admin/users");
      await expect(page.getByRole("heading", { name: "Roles" })).toBeVisible();
      await expect(page.getByRole("heading", { name: "Mode grants", exact: true })).toBeVisible();
      await page.screenshot({ path: `playwright-report/screens/users-${size.name}-${scheme}.png`, fullPage: false });
    });
  }
}
