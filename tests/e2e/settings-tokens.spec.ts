// Issue 30: a member's Settings page creates an access token (shown once), lists and revokes it; an admin also
// sees everyone's. Screenshots at desktop and phone width, light and dark, for review.
import { expect, test } from "./fixtures";
import { SCREENS, shotPath, signInAs } from "./helpers";

for (const screen of SCREENS) {
  test(`settings tokens at ${screen.name}: create (shown once), list, confirm, revoke`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: screen.scheme });
    await page.setViewportSize({ width: screen.width, height: screen.height });
    await signInAs(page, "member@example.com");
    await page.getByRole("link", { name: "Settings" }).click();
    await expect(page.getByRole("heading", { name: "Access tokens" })).toBeVisible();
    const name = `editor ${screen.name}`;
    await page.getByLabel("Name").fill(name);
    await page.getByLabel("Expires in (days)").fill("30");
    await page.getByLabel("Agent id").fill("claude-code");
    await page.getByRole("button", { name: "Create token" }).click();
    await expect(page.getByTestId("new-token")).toHaveText(/^tgp_[A-Za-z0-9_-]{43}$/);
    const row = page.getByTestId("token-row").filter({ hasText: name });
    await expect(row).toContainText("agent claude-code");
    await page.screenshot({ path: shotPath(`settings-tokens-${screen.name}.png`), fullPage: false });
    await page.getByRole("button", { name: "I have copied it" }).click();
    await expect(page.getByTestId("new-token")).toHaveCount(0);
    await row.getByRole("button", { name: `Revoke the token ${name}` }).click();
    await row.getByRole("button", { name: "Revoke", exact: true }).click();
    await expect(row).toContainText("revoked");
  });
}

test("an admin sees every user's tokens on Settings; a member does not", async ({ page }) => {
  await signInAs(page, "member@example.com");
  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page.getByRole("heading", { name: "Every user's tokens" })).toHaveCount(0);
  const made = await page.request.post("/api/tokens", { data: { name: "member-visible-to-admin" }, headers: { origin: new URL(page.url()).origin } });
  expect(made.status()).toBe(201);
  await page.context().clearCookies();
  await signInAs(page, "admin@example.com");
  await page.getByRole("link", { name: "Settings" }).click();
  const all = page.getByRole("region", { name: "Every user's tokens" });
  await expect(all.getByTestId("token-row").filter({ hasText: "member-visible-to-admin" })).toContainText("member@example.com");
});
