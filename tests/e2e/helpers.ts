import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type APIRequestContext, type Cookie, type Page } from "@playwright/test";

export const DEMO_PASSWORD = "toolgate-demo";

/** Where tests leave the screenshots people look at: test-results/screens (npm test empties test-results/ first). */
export const SHOTS_DIR = path.resolve("test-results/screens");
export const shotPath = (name: string) => path.join(SHOTS_DIR, name);

// Sign-ins with the demo password are shared within a worker (one app, tests one after another): the first one of
// an account goes through the form, as a person signs in, and later ones put its session cookies into the new
// context and open /chat. A session that ended since (signed out, roles or password changed: the server bumps the
// account's session version) lands on the sign-in page instead, and signs in through the form again. The suite
// signed in about a hundred times, each a bcrypt check on the server and two page loads. `form: true` always uses
// the form (auth.spec.ts tests it).
const sessions = new Map<string, Cookie[]>();

export async function signInAs(page: Page, email: string, password = DEMO_PASSWORD, { form = false } = {}) {
  const kept = password === DEMO_PASSWORD && !form ? sessions.get(email) : undefined;
  if (kept) {
    await page.context().addCookies(kept);
    await page.goto("/chat");
    if (/\/chat/.test(new URL(page.url()).pathname)) return;
    await page.context().clearCookies();
  }
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/chat/);
  if (password === DEMO_PASSWORD) sessions.set(email, await page.context().cookies());
}

/** Saves a policy document through the API on top of the version in force; returns the new version. */
export async function savePolicy(
  request: APIRequestContext,
  document: unknown,
  comment: string,
  extra: Record<string, unknown> = {},
) {
  const current = await (await request.get("/api/policy")).json();
  const res = await request.put("/api/policy", { data: { baseVersion: current.version, document, comment, ...extra } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).version as number;
}

/** The four screens each visual check runs on: desktop and phone width, light and dark. */
export const SCREENS = (["light", "dark"] as const).flatMap((scheme) =>
  [
    { size: "desktop", width: 1280, height: 800 },
    { size: "phone", width: 390, height: 844 },
  ].map((s) => ({ ...s, scheme, name: `${s.size}-${scheme}` })),
);

/** Opens a chat with "New chat" (a fresh one once the last was used) and returns its id. */
export async function openNewChat(page: Page): Promise<string> {
  await page.goto("/chat");
  await page
    .getByRole("button", { name: /new chat/i })
    .first()
    .click();
  await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
  return new URL(page.url()).pathname.split("/").pop()!;
}

/** Collects the page's Content-Security-Policy violations and errors from the console (a test expects none). */
export function consoleProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || /Content Security Policy/i.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(String(e)));
  return problems;
}

/**
 * Signs in with an admin-issued one-time password, which lands on /change-password (nothing else works until the
 * person chooses their own, issue 32), replaces it through the API and signs in again with the new one.
 */
export async function signInWithOwnPassword(
  page: Page,
  email: string,
  oneTimePassword: string,
  newPassword = DEMO_PASSWORD,
) {
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(oneTimePassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/change-password$/);
  const changed = await page.request.post("/api/me/password", {
    data: { currentPassword: oneTimePassword, newPassword },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(changed.status(), await changed.text()).toBe(200);
  await signInAs(page, email, newPassword, { form: true });
}

/** axe (WCAG A/AA and best practices) finds nothing serious or critical on the page as it is; failures name the nodes. */
export async function expectNoSeriousViolations(page: Page, label: string) {
  const results = await new AxeBuilder({ page })
    .setLegacyMode(true)
    .options({ resultTypes: ["violations"] })
    .analyze();
  const serious = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(serious, `${label}: serious or critical axe violations`).toEqual([]);
  expect(results.passes.length).toBeGreaterThan(5);
}
