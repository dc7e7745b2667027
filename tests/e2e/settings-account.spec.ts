// Issue 32: the account part of Settings. Change password (inline errors, then the sign-in page saying it worked),
// the forced change after an admin's reset (every page sends to /change-password until it is done), and the
// signed-in devices list with "sign out everywhere else" (the other browser is signed out on its next request).
// Each test uses a user of its own, so signing devices out cannot touch what other spec files hold. Four screens:
// desktop and phone width, light and dark; screenshots and an axe check.
import { randomBytes } from "node:crypto";
import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import {
  DEMO_PASSWORD,
  expectNoSeriousViolations,
  SCREENS,
  shotPath,
  signInAs,
  signInWithOwnPassword,
} from "./helpers";

type Screen = (typeof SCREENS)[number];

async function adminPage(browser: Browser) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInAs(page, "admin@example.com");
  return { page, close: () => ctx.close() };
}

/** A new member (made by the admin) who has replaced the one-time password with the demo one. */
async function freshUser(browser: Browser, screen: Screen, tag: string) {
  const admin = await adminPage(browser);
  const email = `e2e-acct-${tag}-${screen.name}-${randomBytes(3).toString("hex")}@example.com`;
  const made = await (
    await admin.page.request.post("/api/admin/users", {
      data: { email, roles: ["member"] },
      headers: { origin: new URL(admin.page.url()).origin },
    })
  ).json();
  await admin.close();
  return { email, id: made.user.id as string, otp: made.temporaryPassword as string };
}

async function newScreenPage(browser: Browser, screen: Screen) {
  const ctx = await browser.newContext({
    viewport: { width: screen.width, height: screen.height },
    colorScheme: screen.scheme,
  });
  return { ctx, page: await ctx.newPage() };
}

async function fillPasswordForm(form: ReturnType<Page["getByRole"]>, current: string, next: string, confirm: string) {
  await form.getByLabel(/^(Current|One-time) password$/).fill(current);
  await form.getByLabel("New password", { exact: true }).fill(next);
  await form.getByLabel("Confirm new password").fill(confirm);
  await form.getByRole("button", { name: "Change password" }).click();
}

for (const screen of SCREENS) {
  test(`settings change password at ${screen.name}: inline errors, then signed out with a success message`, async ({
    browser,
  }) => {
    const user = await freshUser(browser, screen, "pw");
    const { ctx, page } = await newScreenPage(browser, screen);
    await signInWithOwnPassword(page, user.email, user.otp);
    await page.goto("/settings");
    const form = page.getByRole("form", { name: "Change password" });
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(form.getByText("Enter your current password.")).toBeVisible();
    await expect(form.getByLabel("Current password")).toBeFocused();
    await expect(form.getByLabel("Current password")).toHaveAttribute("aria-invalid", "true");
    await fillPasswordForm(form, DEMO_PASSWORD, "short", "short");
    await expect(form.getByText("Use at least 8 characters.")).toBeVisible();
    await fillPasswordForm(form, DEMO_PASSWORD, "a-new-password-1", "a-new-password-2");
    await expect(form.getByText("The two new passwords do not match.")).toBeVisible();
    await expect(form.getByLabel("Confirm new password")).toBeFocused();
    // The server's refusal, by its field.
    await fillPasswordForm(form, "not-my-password", "a-new-password-1", "a-new-password-1");
    await expect(form.getByText("The current password is wrong.")).toBeVisible();
    await form.scrollIntoViewIfNeeded();
    await page.screenshot({ path: shotPath(`settings-password-errors-${screen.name}.png`) });
    await expectNoSeriousViolations(page, `settings with errors ${screen.name}`);

    await fillPasswordForm(form, DEMO_PASSWORD, "a-new-password-1", "a-new-password-1");
    await expect(page).toHaveURL(/\/login\?changed=1$/);
    await expect(page.getByTestId("password-changed")).toContainText("Sign in with your new password");
    await page.screenshot({ path: shotPath(`settings-password-changed-${screen.name}.png`) });
    // The old password no longer signs in; the new one does.
    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText("Wrong e-mail or password.")).toBeVisible();
    await signInAs(page, user.email, "a-new-password-1", { form: true });
    await ctx.close();
  });

  test(`forced password change after an admin reset at ${screen.name}: every page sends to the form until it is done`, async ({
    browser,
  }) => {
    const user = await freshUser(browser, screen, "forced");
    const admin = await adminPage(browser);
    const reset = await admin.page.request.post(`/api/admin/users/${user.id}/password`, {
      data: {},
      headers: { origin: new URL(admin.page.url()).origin },
    });
    expect(reset.status()).toBe(200);
    const otp = ((await reset.json()) as { temporaryPassword: string }).temporaryPassword;
    await admin.close();

    const { ctx, page } = await newScreenPage(browser, screen);
    await page.goto("/login");
    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill(otp);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/change-password$/);
    await expect(page.getByRole("heading", { name: "Choose your password" })).toBeVisible();
    for (const path of ["/chat", "/settings", "/login"]) {
      await page.goto(path);
      await expect(page, path).toHaveURL(/\/change-password$/);
    }
    // The server refuses the APIs, not only the pages.
    const api = await page.request.get("/api/sessions");
    expect(api.status()).toBe(403);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe("PASSWORD_CHANGE_REQUIRED");
    const form = page.getByRole("form", { name: "Change password" });
    await fillPasswordForm(form, otp, otp, otp);
    await expect(form.getByText("Choose a password different from the current one.")).toBeVisible();
    await page.screenshot({ path: shotPath(`change-password-forced-${screen.name}.png`) });
    await expectNoSeriousViolations(page, `change-password ${screen.name}`);

    await fillPasswordForm(form, otp, "my-own-password-1", "my-own-password-1");
    await expect(page).toHaveURL(/\/login\?changed=1$/);
    await signInAs(page, user.email, "my-own-password-1", { form: true });
    await page.goto("/settings");
    await expect(page).toHaveURL(/\/settings$/);
    await ctx.close();
  });

  test(`signed-in devices at ${screen.name}: this one marked, sign out everywhere else ends the other browser on its next request`, async ({
    browser,
  }) => {
    const user = await freshUser(browser, screen, "devices");
    const here = await newScreenPage(browser, screen);
    await signInWithOwnPassword(here.page, user.email, user.otp);
    const other = await newScreenPage(browser, screen);
    await signInAs(other.page, user.email, DEMO_PASSWORD, { form: true });
    await other.page.goto("/settings");

    await here.page.goto("/settings");
    const section = here.page.getByRole("region", { name: "Signed-in devices" });
    await expect(section.getByTestId("device-row")).toHaveCount(2);
    await expect(section.getByTestId("device-row").filter({ hasText: "This device" })).toHaveCount(1);
    await section.scrollIntoViewIfNeeded();
    await here.page.screenshot({ path: shotPath(`settings-devices-${screen.name}.png`) });
    await expectNoSeriousViolations(here.page, `settings devices ${screen.name}`);

    await section.getByRole("button", { name: "Sign out everywhere else…" }).click();
    await section.getByRole("button", { name: "Cancel" }).click();
    await expect(section.getByTestId("device-row")).toHaveCount(2);
    await section.getByRole("button", { name: "Sign out everywhere else…" }).click();
    await section.getByRole("button", { name: "Yes, sign out 1 other device" }).click();
    await expect(section.getByRole("status")).toHaveText("Signed out 1 other device.");
    await expect(section.getByTestId("device-row")).toHaveCount(1);
    await expect(section.getByTestId("device-row")).toContainText("This device");
    await expect(section.getByRole("button", { name: "Sign out everywhere else…" })).toBeDisabled();
    await here.page.screenshot({ path: shotPath(`settings-devices-after-${screen.name}.png`) });

    // The other browser: its next request finds the session ended and lands on sign-in saying so.
    await other.page.goto("/chat");
    await expect(other.page).toHaveURL(/\/login\?.*ended=1/);
    await expect(other.page.getByTestId("session-ended")).toBeVisible();
    // This one goes on.
    await here.page.goto("/chat");
    await expect(here.page).toHaveURL(/\/chat/);
    await Promise.all([here.ctx.close(), other.ctx.close()]);
  });
}
