// The owners' grants page: every allow-always grant with its scope, creator, expiry and uses, revoked only after
// a confirmation that names the rule. Screenshots at desktop and phone width, light and dark, for review.
import { expect, test } from "./fixtures";
import Database from "better-sqlite3";
import { expectNoSeriousViolations, signInAs } from "./helpers";

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

// lib/db is server-only and the generated client does not load here: rows go in with plain SQL, as Prisma writes them.
const iso = (d: Date) => d.toISOString().replace("Z", "+00:00");

async function seedGrants(databaseFile: string, tag: string) {
  const db = new Database(databaseFile, { timeout: 10_000 });
  try {
    const id = (email: string) => (db.prepare(`SELECT id FROM "User" WHERE email = ?`).get(email) as { id: string }).id;
    const owner = id("owner@example.com");
    const insert = db.prepare(
      `INSERT INTO "AllowlistEntry" (id, kind, pattern, words, prefix, scope, scopeId, createdById, createdAt, expiresAt, useCount, lastUsedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const now = new Date();
    insert.run(
      `g1-${tag}`,
      "exec",
      `git status ${tag}`,
      JSON.stringify(["git", "status", tag]),
      0,
      "user",
      id("member@example.com"),
      owner,
      iso(now),
      null,
      3,
      iso(now),
    );
    insert.run(
      `g2-${tag}`,
      "exec",
      `ls ${tag} *`,
      JSON.stringify(["ls", tag]),
      1,
      "everyone",
      "",
      owner,
      iso(now),
      iso(new Date(now.getTime() + 86_400_000)),
      0,
      null,
    );
    insert.run(
      `g3-${tag}`,
      "tool",
      `current_time_${tag}`,
      null,
      0,
      "everyone",
      "",
      owner,
      iso(now),
      iso(new Date(now.getTime() - 60_000)),
      0,
      null,
    );
  } finally {
    db.close();
  }
}

for (const scheme of ["light", "dark"] as const) {
  for (const size of SIZES) {
    test(`grants page at ${size.name} width in ${scheme} mode: list, confirm, revoke`, async ({ page, app }) => {
      const tag = `${size.name}-${scheme}`;
      await seedGrants(app.databaseFile, tag);
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: size.width, height: size.height });
      await signInAs(page, "owner@example.com");
      // On a phone the navigation is behind the Menu button.
      if (size.width < 640) await page.getByRole("button", { name: "Menu" }).click();
      await page.getByRole("link", { name: "Grants" }).click();
      await expect(page.getByRole("heading", { name: "Allow-always grants" })).toBeVisible();
      const row = page.getByTestId("grant-row").filter({ hasText: `git status ${tag}` });
      await expect(row).toContainText("one user: member@example.com");
      await expect(row).toContainText("3 uses");
      await expect(page.getByTestId("grant-row").filter({ hasText: `current_time_${tag}` })).toContainText("expired");
      await page.screenshot({ path: `playwright-report/screens/grants-${size.name}-${scheme}.png`, fullPage: false });
      // With an expired grant listed (its row is dimmed): the dimming must still read (it once did not, at 4.34:1).
      await expectNoSeriousViolations(page, `grants ${tag}`);

      await row.getByRole("button", { name: /^Revoke the grant/ }).click();
      await expect(row.getByRole("button", { name: `Revoke git status ${tag}` })).toBeVisible();
      await row.getByRole("button", { name: `Revoke git status ${tag}` }).click();
      await expect(page.getByTestId("grant-row").filter({ hasText: `git status ${tag}` })).toHaveCount(0);
    });
  }
}

test("a member is sent away from the grants page and cannot read the API", async ({ page }) => {
  await signInAs(page, "member@example.com");
  await expect(page.getByRole("link", { name: "Grants" })).toHaveCount(0);
  await page.goto("/grants");
  await expect(page).toHaveURL(/\/chat/);
  expect((await page.request.get("/api/exec-allowlist")).status()).toBe(403);
});
