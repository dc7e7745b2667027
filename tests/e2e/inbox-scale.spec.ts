// Issue 33 in the browser, with 10,000 pending requests (seeded straight into the worker app's SQLite file and
// removed afterwards, so the other spec files of the worker see their own inbox again): the count says "1000+",
// pages load by the server's cursor, search reaches the oldest request, keys move through the list and open one,
// a bulk deny denies exactly the chosen ones, and the open request shows its chat by title and a countdown. On
// each of the four screens (desktop and phone, light and dark), with axe finding nothing serious.
import AxeBuilder from "@axe-core/playwright";
import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { expect, test } from "./fixtures";
import { SCREENS, consoleProblems, shotPath, signInAs } from "./helpers";

const COUNT = 10_000;
const tag = `scale${Date.now().toString(36)}`;
let db: Database.Database;
let sessionId = "";

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ app }) => {
  db = new Database(app.databaseFile, { timeout: 10_000 });
  const memberId = (db.prepare(`SELECT id FROM "User" WHERE email = ?`).get("member@example.com") as { id: string }).id;
  const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");
  const now = Date.now();
  sessionId = `s${randomUUID().replace(/-/g, "")}`;
  db.prepare(
    `INSERT INTO "ChatSession" (id, ownerId, title, mode, depth, createdAt, updatedAt) VALUES (?, ?, ?, 'coding', 0, ?, ?)`,
  ).run(sessionId, memberId, `Scale chat ${tag}`, iso(now), iso(now));
  const insert = db.prepare(
    `INSERT INTO "Approval" (id, kind, sessionId, requesterId, toolName, callId, argsHash, args, command, reason, status, createdAt, expiresAt) VALUES (?, 'exec', ?, ?, 'exec', ?, ?, ?, ?, 'seeded for a test', 'pending', ?, ?)`,
  );
  db.transaction(() => {
    // Request 0 is the oldest: the last of 10,000 in the list, reached only by paging or by search. They are dated
    // just after now, so requests other spec files of this worker left pending sort after them.
    for (let i = 0; i < COUNT; i++) {
      const command = i === 0 ? `echo needle-${tag}` : `echo ${tag}-${i}`;
      insert.run(
        `a${tag}${i}`,
        sessionId,
        memberId,
        `call-${i}`,
        "0".repeat(64),
        JSON.stringify({ command }),
        command,
        iso(now + i),
        iso(now + 2 * 3_600_000),
      );
    }
  }).immediate();
});

test.afterAll(async () => {
  db?.prepare(`DELETE FROM "Approval" WHERE sessionId = ?`).run(sessionId);
  db?.prepare(`DELETE FROM "ChatSession" WHERE id = ?`).run(sessionId);
  db?.close();
});

for (const screen of SCREENS) {
  test(`10,000 pending (${screen.name}): count, paging, search, keys, countdown, chat title; axe finds nothing serious`, async ({
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
    await expect(page.getByTestId("pending-count")).toHaveText("1000+");
    await expect(page.getByTestId("nav-pending-count")).toContainText("1000+");
    const rows = page.getByTestId("pending-list").getByTestId("approval-row");
    await expect(rows).toHaveCount(50);
    await expect(rows.first()).toContainText(`${tag}-${COUNT - 1}`);
    await expect(rows.first().getByTestId("expiry-countdown")).toContainText(/expires in (1 h|2 h|\d+ min)/);
    await page.getByTestId("pending-more").click();
    await expect(rows).toHaveCount(100);
    await expect(rows.nth(99)).toContainText(`${tag}-${COUNT - 100}`);

    // Keys: into the list, down twice (arrow, then j), Enter opens that request.
    await rows.first().focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("j");
    await expect(rows.nth(2)).toBeFocused();
    await page.keyboard.press("k");
    await expect(rows.nth(1)).toBeFocused();
    await page.keyboard.press("Enter");
    const detail = page.getByTestId("approval-detail");
    await expect(detail.getByTestId("approval-command")).toHaveText(`echo ${tag}-${COUNT - 2}`);
    await expect(detail.getByTestId("approval-chat")).toHaveText(`“Scale chat ${tag}”`);
    await expect(detail.getByTestId("expiry-countdown")).toBeVisible();
    await expect(detail.getByRole("button", { name: /Deny/ })).toBeInViewport();

    // Search reaches the oldest of 10,000; "/" jumps to the box.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("/");
    await expect(page.getByTestId("inbox-filters").getByRole("searchbox")).toBeFocused();
    await page.keyboard.type(`needle-${tag}`);
    await expect(rows).toHaveCount(1);
    await expect(page.getByTestId("pending-count")).toHaveText("1");
    await rows.first().click();
    await expect(detail.getByTestId("approval-command")).toHaveText(`echo needle-${tag}`);
    await expect(detail.getByRole("button", { name: /Deny/ })).toBeInViewport();

    const axe = await new AxeBuilder({ page })
      .setLegacyMode(true)
      .options({ resultTypes: ["violations"] })
      .analyze();
    expect(
      axe.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    ).toEqual([]);
    await page.screenshot({ path: shotPath(`inbox-scale-${screen.name}.png`) });
    expect(problems).toEqual([]);
    await ctx.close();
  });
}

test("bulk deny at 10,000 pending denies exactly the chosen requests", async ({ browser }) => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  await signInAs(page, "owner@example.com");
  await page.goto("/approvals");
  const rows = page.getByTestId("pending-list").getByTestId("approval-row");
  await expect(rows).toHaveCount(50);
  const checks = page.getByTestId("pending-list").getByTestId("approval-check");
  const chosen: string[] = [];
  for (const i of [0, 1, 3]) {
    await checks.nth(i).check();
    chosen.push((await rows.nth(i).getAttribute("data-approval-id"))!);
  }
  const unchosen = (await rows.nth(2).getAttribute("data-approval-id"))!;
  await page.getByRole("button", { name: "Deny chosen (3)…" }).click();
  await page.getByRole("group", { name: "Confirm bulk deny" }).getByRole("textbox").fill("flood");
  await page.getByRole("button", { name: "Deny 3 requests" }).click();
  await expect(page.getByTestId("bulk-deny-result")).toHaveText("Denied 3.");
  const statuses = db
    .prepare(`SELECT id, status, resolveReason FROM "Approval" WHERE id IN (?, ?, ?, ?) ORDER BY id`)
    .all(...chosen, unchosen) as Array<{ id: string; status: string; resolveReason: string | null }>;
  expect(
    statuses
      .filter((s) => s.status === "denied")
      .map((s) => s.id)
      .sort(),
  ).toEqual([...chosen].sort());
  expect(statuses.filter((s) => s.status === "denied").every((s) => s.resolveReason === "flood")).toBe(true);
  expect(statuses.filter((s) => s.status === "pending")).toHaveLength(1);
  await expect(rows.filter({ hasText: "denied" })).toHaveCount(0);
  await ctx.close();
});
