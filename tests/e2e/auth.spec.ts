import { expect, test } from "./fixtures";
import { DEMO_PASSWORD, signInAs } from "./helpers";

const cases = [
  { email: "admin@example.com", nav: ["Chat", "Approvals", "Admin"], hidden: [] as string[] },
  { email: "owner@example.com", nav: ["Chat", "Approvals"], hidden: ["Admin"] },
  { email: "member@example.com", nav: ["Chat"], hidden: ["Approvals", "Admin"] },
];

for (const c of cases) {
  test(`${c.email} signs in and sees the right navigation`, async ({ page }) => {
    await signInAs(page, c.email, DEMO_PASSWORD, { form: true });
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const label of c.nav) await expect(nav.getByRole("link", { name: label })).toBeVisible();
    for (const label of c.hidden) await expect(nav.getByRole("link", { name: label })).toHaveCount(0);
    await expect(page.getByTestId("current-user")).toContainText(c.email);
  });
}

test("a member is redirected away from admin pages, told why, and gets 403 from an admin API", async ({ page }) => {
  await signInAs(page, "member@example.com");
  await expect(page.getByTestId("redirect-notice")).toHaveCount(0);
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/chat\?notice=admin-only$/);
  await expect(page.getByTestId("redirect-notice")).toContainText("does not have the admin role");
  await page.goto("/admin/users");
  await expect(page).toHaveURL(/\/chat\?notice=admin-only$/);
  await page.goto("/approvals");
  await expect(page.getByTestId("redirect-notice")).toContainText("does not have the owner role");
  const res = await page.request.get("/api/admin/users");
  expect(res.status()).toBe(403);
  expect((await res.json()).error.code).toBe("FORBIDDEN");
});

test("a wrong password shows an error and no session", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("E-mail").fill("member@example.com");
  await page.getByLabel("Password").fill("wrong-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("#login-error")).toContainText("Wrong e-mail or password");
  // The e-mail stays as typed and the cursor waits in the password field.
  await expect(page.getByLabel("E-mail")).toHaveValue("member@example.com");
  await expect(page.getByLabel("Password")).toBeFocused();
  await page.goto("/chat");
  await expect(page).toHaveURL(/\/login/);
});

test("a signed-out deep link comes back after sign-in (and only to this site)", async ({ page, baseURL }) => {
  await page.goto("/admin/audit?user=member&action=session.created");
  await expect(page).toHaveURL(/\/login\?next=/);
  await page.getByLabel("E-mail").fill("admin@example.com");
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin\/audit\?user=member&action=session\.created$/);
  await expect(page.getByRole("form", { name: "Audit filters" }).getByLabel(/User/)).toHaveValue("member");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.goto("/login?next=//evil.example/x");
  await page.getByLabel("E-mail").fill("member@example.com");
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/chat/);
  expect(new URL(page.url()).host).toBe(new URL(baseURL!).host);
});

test("sign out ends the session", async ({ page }) => {
  await signInAs(page, "owner@example.com");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto("/approvals");
  await expect(page).toHaveURL(/\/login/);
});
