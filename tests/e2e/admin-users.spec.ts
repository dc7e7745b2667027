// Issue 15 in the browser: an admin creates a user (owner asks first, the one-time password is shown once), a
// role grant asks first and Cancel changes nothing; the affected person's open page follows role and mode-grant
// changes without a reload, and is signed out the moment they are deactivated. Admin and main nav mark the
// current page.
import { expect, test } from "./fixtures";
import { consoleProblems, savePolicy, signInAs, signInWithOwnPassword, shotPath } from "./helpers";

test("an admin creates a user with a confirmed owner role; the one-time password signs in; granting admin asks first", async ({
  browser,
}) => {
  const adminCtx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const admin = await adminCtx.newPage();
  const problems = consoleProblems(admin);
  await signInAs(admin, "admin@example.com");
  await admin.goto("/admin/users");
  await expect(
    admin.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Users" }),
  ).toHaveAttribute("aria-current", "page");
  // The section links are shown whole, not clipped by a nav squeezed by the long page below it.
  await expect(
    admin.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Users" }),
  ).toBeInViewport({ ratio: 1 });
  await expect(
    admin.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Policy" }),
  ).not.toHaveAttribute("aria-current", "page");
  await expect(admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveAttribute(
    "aria-current",
    "page",
  );

  const email = `e2e-new-${Date.now().toString(36)}@example.com`;
  const form = admin.getByRole("region", { name: "Add a user" });
  await form.getByLabel("E-mail").fill(email);
  await form.getByLabel("owner").check();
  await form.getByRole("button", { name: "Create user" }).click();
  const dialog = admin.getByRole("dialog");
  await expect(dialog).toContainText(`Create ${email} with owner?`);
  // Cancel has the focus: Enter alone never confirms.
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await dialog.getByRole("button", { name: "Create with owner" }).click();
  const secret = admin.getByTestId("one-time-password-value");
  await expect(secret).toHaveText(/^[A-Za-z0-9_-]{20,}$/);
  const password = (await secret.textContent())!.trim();
  const row = admin.getByTestId("user-row").filter({ hasText: email });
  await expect(row.getByLabel(`${email} has role owner`)).toBeChecked();
  await admin.getByRole("button", { name: "Done, hide it" }).click();
  await expect(admin.getByTestId("one-time-password")).toHaveCount(0);

  // Granting admin asks first; Cancel leaves everything as it was.
  await row.getByLabel(`${email} has role admin`).click();
  await expect(admin.getByRole("dialog")).toContainText(`Make ${email} admin?`);
  await admin.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  await expect(admin.getByRole("dialog")).toHaveCount(0);
  await expect(row.getByLabel(`${email} has role admin`)).not.toBeChecked();
  const listed = await (await admin.request.get("/api/admin/users")).json();
  expect(listed.users.find((u: { email: string }) => u.email === email).roles).toEqual(["member", "owner"]);

  const userCtx = await browser.newContext();
  const user = await userCtx.newPage();
  await signInWithOwnPassword(user, email, password);
  await expect(user.getByTestId("current-user")).toContainText("member, owner");
  await admin.screenshot({ path: shotPath("users-admin-1280-light.png"), fullPage: true });
  expect(problems).toEqual([]);
  await Promise.all([adminCtx.close(), userCtx.close()]);
});

test("the affected person's open page follows a role grant and a mode grant without a reload, and is signed out when deactivated", async ({
  browser,
}) => {
  const adminCtx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const admin = await adminCtx.newPage();
  await signInAs(admin, "admin@example.com");
  const email = `e2e-live-${Date.now().toString(36)}@example.com`;
  const made = await (await admin.request.post("/api/admin/users", { data: { email, roles: ["member"] } })).json();
  const userId = made.user.id as string;

  const userCtx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const user = await userCtx.newPage();
  const problems = consoleProblems(user);
  await signInWithOwnPassword(user, email, made.temporaryPassword);
  const session = await (await user.request.post("/api/sessions", { data: {} })).json();
  await user.goto(`/chat/${session.id}`);
  const nav = user.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Chat" })).toHaveAttribute("aria-current", "page");
  await expect(nav.getByRole("link", { name: /Approvals/ })).toHaveCount(0);
  await expect(user.locator("option", { hasText: "coding (not granted)" })).toHaveCount(1);
  // A marker that a reload would wipe: it must survive every update below.
  await user.evaluate(() => ((window as unknown as { e2eMarker: string }).e2eMarker = "no reload"));

  // Role grant → nav gains Approvals and Grants.
  expect(
    (await admin.request.post(`/api/admin/users/${userId}/roles`, { data: { role: "owner", action: "add" } })).status(),
  ).toBe(200);
  await expect(nav.getByRole("link", { name: /Approvals/ })).toBeVisible();
  await expect(user.getByTestId("current-user")).toContainText("member, owner");

  // Mode grant (a policy save) → the mode choice offers coding.
  const policy = await (await admin.request.get("/api/policy")).json();
  const modeGrants = policy.document.modeGrants ?? {};
  await savePolicy(
    admin.request,
    {
      ...policy.document,
      modeGrants: { ...modeGrants, users: { ...(modeGrants.users ?? {}), [userId]: ["chat_safe", "coding"] } },
    },
    "e2e live mode grant",
  );
  await expect(user.locator("option", { hasText: "coding (not granted)" })).toHaveCount(0);
  await expect(user.locator("option", { hasText: /^coding$/ })).toHaveCount(1);
  expect(await user.evaluate(() => (window as unknown as { e2eMarker?: string }).e2eMarker)).toBe("no reload");

  // Deactivation → the open tab lands on sign-in with the reason, at once.
  expect((await admin.request.post(`/api/admin/users/${userId}/active`, { data: { active: false } })).status()).toBe(
    200,
  );
  await expect(user).toHaveURL(/\/login\?.*ended=1/, { timeout: 8_000 });
  await expect(user.getByTestId("session-ended")).toContainText("You were signed out");
  // Expected once the session has ended: requests of the open page (its session check, the inbox badge) get 401.
  expect(
    problems.filter((p) => !/^Failed to load resource: the server responded with a status of 401 /.test(p)),
  ).toEqual([]);
  await Promise.all([adminCtx.close(), userCtx.close()]);
});
