// Issue 33 in the browser: the inbox's Risk filter, beside the others, narrows the list by the cues each request
// carries (stored when it was registered), and says why "First use" is not offered. Requests are seeded straight
// into the worker app's SQLite file with their stored cues, and removed afterwards. On each of the four screens
// (desktop and phone, light and dark), with axe finding nothing serious.
import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { expect, test } from "./fixtures";
import { SCREENS, consoleProblems, expectNoSeriousViolations, shotPath, signInAs } from "./helpers";

const tag = `risk${Date.now().toString(36)}`;
let db: Database.Database;
let sessionId = "";
const REQUESTS = [
  { command: `rm -rf build-${tag}`, riskKinds: ",destructive," },
  { command: `curl https://example.org/${tag}`, riskKinds: ",network," },
  { command: `curl https://example.org/${tag} > /etc/${tag}`, riskKinds: ",network,destructive,outside-workspace," },
  { command: `echo calm-${tag}`, riskKinds: "" },
];

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ app }) => {
  db = new Database(app.databaseFile, { timeout: 10_000 });
  const memberId = (db.prepare(`SELECT id FROM "User" WHERE email = ?`).get("member@example.com") as { id: string }).id;
  const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");
  const now = Date.now();
  sessionId = `s${randomUUID().replace(/-/g, "")}`;
  db.prepare(
    `INSERT INTO "ChatSession" (id, ownerId, title, mode, depth, createdAt, updatedAt) VALUES (?, ?, ?, 'coding', 0, ?, ?)`,
  ).run(sessionId, memberId, `Risk chat ${tag}`, iso(now), iso(now));
  const insert = db.prepare(
    `INSERT INTO "Approval" (id, kind, sessionId, requesterId, toolName, callId, argsHash, args, command, reason, status, createdAt, expiresAt, riskKinds) VALUES (?, 'exec', ?, ?, 'exec', ?, ?, ?, ?, 'seeded for a test', 'pending', ?, ?, ?)`,
  );
  REQUESTS.forEach(({ command, riskKinds }, i) => {
    insert.run(
      `a${tag}${i}`,
      sessionId,
      memberId,
      `call-${i}`,
      "0".repeat(64),
      JSON.stringify({ command }),
      command,
      iso(now + i),
      iso(now + 3_600_000),
      riskKinds,
    );
  });
});

test.afterAll(async () => {
  db?.prepare(`DELETE FROM "Approval" WHERE sessionId = ?`).run(sessionId);
  db?.prepare(`DELETE FROM "ChatSession" WHERE id = ?`).run(sessionId);
  db?.close();
});

for (const screen of SCREENS) {
  test(`risk filter (${screen.name}): narrows to the chosen cue, says why First use is not offered; axe`, async ({
    browser,
  }) => {
    const ctx = await browser.newContext({
      viewport: { width: screen.width, height: screen.height },
      colorScheme: screen.scheme,
      isMobile: screen.size === "phone",
      hasTouch: screen.size === "phone",
    });
    const page = await ctx.newPage();
    const problems = consoleProblems(page);
    await signInAs(page, "owner@example.com");
    await page.goto("/approvals");
    const filters = page.getByTestId("inbox-filters");
    const rows = page.getByTestId("pending-list").getByTestId("approval-row");
    await filters.getByRole("searchbox").fill(tag);
    await expect(rows).toHaveCount(4);

    await filters.getByText(/^Filters/).click();
    const risk = filters.getByRole("combobox", { name: "Risk" });
    await expect(risk).toBeVisible();
    await expect(risk.locator("option")).toHaveText([
      "any",
      "Destructive",
      "Network",
      "Outside the workspace",
      "Not analysed: read it whole",
    ]);
    await expect(filters.getByText(/“First use” is shown on each request but not filterable/)).toBeVisible();

    await risk.selectOption("destructive");
    await expect(rows).toHaveCount(2);
    await expect(rows.filter({ hasText: `rm -rf build-${tag}` })).toHaveCount(1);
    await expect(rows.filter({ hasText: `/etc/${tag}` })).toHaveCount(1);
    await expect(page.getByTestId("pending-count")).toHaveText("2");
    await expect(filters.getByText("Filters (1)")).toBeVisible();

    await risk.selectOption("outside-workspace");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(`/etc/${tag}`);
    await expectNoSeriousViolations(page, screen.name);
    await page.screenshot({ path: shotPath(`inbox-risk-filter-${screen.name}.png`) });

    await risk.selectOption("");
    await expect(rows).toHaveCount(4);
    expect(problems).toEqual([]);
    await ctx.close();
  });
}
