// Issue 30: Settings lists the person's OAuth-connected apps with a Revoke per app, and "Revoke everything" (with a
// confirm step) ends every access token and app at once. Each test uses a user of its own (created by the admin),
// so revoking everything cannot touch what other spec files on the same app hold. Screenshots at desktop and phone
// width, light and dark.
import { createHash, randomBytes } from "node:crypto";
import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { SCREENS, shotPath, signInAs, signInWithOwnPassword } from "./helpers";

const REDIRECT = "http://127.0.0.1:9/callback";

async function freshUser(browser: Browser, viewport: { width: number; height: number }, colorScheme: "light" | "dark") {
  const adminCtx = await browser.newContext();
  const admin = await adminCtx.newPage();
  await signInAs(admin, "admin@example.com");
  const email = `e2e-apps-${Date.now().toString(36)}${randomBytes(2).toString("hex")}@example.com`;
  const made = await (
    await admin.request.post("/api/admin/users", {
      data: { email, roles: ["member"] },
      headers: { origin: new URL(admin.url()).origin },
    })
  ).json();
  await adminCtx.close();
  const ctx = await browser.newContext({ viewport, colorScheme });
  const page = await ctx.newPage();
  await signInWithOwnPassword(page, email, made.temporaryPassword as string);
  return { page, close: () => ctx.close() };
}

/** A grant for the signed-in user, consented the way the consent page's script does it. */
async function connect(page: Page, name: string) {
  const origin = new URL(page.url()).origin;
  const registered = await page.request.post("/oauth/register", {
    data: { client_name: name, redirect_uris: [REDIRECT] },
  });
  expect(registered.status()).toBe(201);
  const { client_id } = (await registered.json()) as { client_id: string };
  const challenge = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url");
  const params = {
    response_type: "code",
    client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s",
  };
  const consent = await page.request.post("/api/oauth/consent", {
    data: { params, decision: "approve" },
    headers: { origin },
  });
  expect(consent.status()).toBe(200);
}

for (const screen of SCREENS) {
  test(`settings connected apps at ${screen.name}: listed, revoked one by one, revoke everything with a confirm`, async ({
    browser,
  }) => {
    const { page, close } = await freshUser(browser, { width: screen.width, height: screen.height }, screen.scheme);
    await connect(page, `Editor ${screen.name}`);
    await connect(page, `Notebook ${screen.name}`);
    const pat = await page.request.post("/api/tokens", {
      data: { name: "laptop" },
      headers: { origin: new URL(page.url()).origin },
    });
    expect(pat.status()).toBe(201);
    await page.goto("/settings");
    const section = page.getByRole("region", { name: "Connected apps (OAuth)" });
    await expect(section.getByTestId("grant-row")).toHaveCount(2);
    await section.getByTestId("grant-row").first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: shotPath(`settings-connected-apps-${screen.name}.png`), fullPage: false });

    const editor = section.getByTestId("grant-row").filter({ hasText: `Editor ${screen.name}` });
    await editor.getByRole("button", { name: `Revoke Editor ${screen.name}` }).click();
    await editor.getByRole("button", { name: "Revoke", exact: true }).click();
    await expect(section.getByTestId("grant-row")).toHaveCount(1);

    await section.getByRole("button", { name: "Revoke everything…" }).click();
    await section.getByRole("button", { name: "Cancel" }).click();
    await expect(section.getByTestId("grant-row")).toHaveCount(1);
    await section.getByRole("button", { name: "Revoke everything…" }).click();
    await section.getByRole("button", { name: "Yes, revoke everything" }).click();
    await expect(section.getByRole("status")).toHaveText("Revoked 1 access token and 1 connected app.");
    await expect(section.getByText("No connected apps.")).toBeVisible();
    await expect(page.getByTestId("token-row").filter({ hasText: "laptop" })).toContainText("revoked");
    await close();
  });
}
