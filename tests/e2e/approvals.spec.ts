// Issue 5 "Done when", in the browser with two contexts: a member in coding asks for a risky command and
// sees it pending; the owner, signed in elsewhere, sees it appear in /approvals without reloading and
// decides; the member's chat shows the outcome and the model's answer without reloading.
import fs from "node:fs";
import path from "node:path";
import { type Browser, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import Database from "better-sqlite3";
import { signInAs, SHOTS_DIR } from "./helpers";

const SHOTS = SHOTS_DIR;

let db: Database.Database;
let memberId: string;

test.beforeAll(async ({ app }) => {
  // The browser tests' app runs on SQLite (tests/e2e/fixtures.ts); lib/db/client is server-only, and the
  // generated Prisma client does not load here, so the grant goes in with plain SQL (rows as Prisma writes them).
  db = new Database(app.databaseFile, { timeout: 10_000 });
  memberId = (db.prepare(`SELECT id FROM "User" WHERE email = ?`).get("member@example.com") as { id: string }).id;
  const last = db.prepare(`SELECT MAX(version) AS v FROM "PolicyVersion"`).get() as { v: number | null };
  db.prepare(`INSERT INTO "PolicyVersion" (version, document, comment, createdAt) VALUES (?, ?, ?, ?)`).run(
    (last.v ?? 0) + 1,
    JSON.stringify({ modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } } }),
    "e2e approvals: member gets coding",
    new Date().toISOString().replace("Z", "+00:00"),
  );
});

test.afterAll(async () => {
  db?.close();
});

async function twoUsers(browser: Browser) {
  const memberCtx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const ownerCtx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const member = await memberCtx.newPage();
  const owner = await ownerCtx.newPage();
  await signInAs(member, "member@example.com");
  await signInAs(owner, "owner@example.com");
  return { member, owner, close: async () => Promise.all([memberCtx.close(), ownerCtx.close()]) };
}

async function newCodingChat(page: Page) {
  await page
    .getByRole("button", { name: /new chat/i })
    .first()
    .click();
  await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
  const mode = page.getByLabel("Mode");
  await expect(mode).toBeEnabled();
  await mode.selectOption("coding");
  await expect(mode).toHaveValue("coding");
  await expect(mode).toBeEnabled();
}

async function ask(page: Page, command: string) {
  await page.getByLabel("Message").fill(`/tool exec ${JSON.stringify({ command })}`);
  await page.getByLabel("Message").press("Enter");
}

/** Marks the page; if it is reloaded or navigated the marker is gone. */
async function markNoReload(page: Page) {
  await page.evaluate(() => ((window as unknown as { __noReload: number }).__noReload = 1));
}
async function expectNotReloaded(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __noReload?: number }).__noReload)).toBe(1);
}

test("deny: the owner sees the request arrive live and denies it; the member's chat shows the denial and the answer live", async ({
  browser,
}) => {
  const { member, owner, close } = await twoUsers(browser);
  await owner.goto("/approvals");
  await expect(owner.getByRole("heading", { name: /Pending/ })).toBeVisible();
  await markNoReload(owner);

  await newCodingChat(member);
  await markNoReload(member);
  await ask(member, "rm -rf data");
  const pendingCard = member.getByTestId("approval-pending");
  await expect(pendingCard).toBeVisible();
  await expect(pendingCard).toContainText("rm -rf data");
  // The turn is paused: the composer says so instead of letting a message be refused (issue 11).
  await expect(member.getByTestId("composer-blocked")).toContainText("Waiting for an owner's approval");
  await member.screenshot({ path: path.join(SHOTS, "approvals-member-pending.png"), fullPage: true });

  const row = owner.getByTestId("pending-list").getByTestId("approval-row").filter({ hasText: "rm -rf data" });
  await expect(row).toHaveCount(1);
  await row.click();
  const detail = owner.getByTestId("approval-detail");
  await expect(detail.getByTestId("approval-command")).toHaveText("rm -rf data");
  await expect(detail).toContainText("member@example.com");
  await expect(detail).toContainText(/Analysis/);
  await owner.screenshot({ path: path.join(SHOTS, "approvals-inbox-pending.png"), fullPage: true });

  await detail.getByLabel(/Reason/).fill("not today");
  await detail.getByRole("button", { name: /Deny/ }).click();
  await expect(
    owner.getByTestId("pending-list").getByTestId("approval-row").filter({ hasText: "rm -rf data" }),
  ).toHaveCount(0);
  await expect(
    owner.getByTestId("history-list").getByTestId("approval-row").filter({ hasText: "rm -rf data" }).first(),
  ).toContainText("denied");
  await owner.screenshot({ path: path.join(SHOTS, "approvals-inbox-decided.png"), fullPage: true });

  const denied = member.getByTestId("tool-denied");
  await expect(denied).toBeVisible({ timeout: 20_000 });
  await expect(denied).toHaveAttribute("data-error-code", "APPROVAL_DENIED");
  await expect(denied).toContainText("not today");
  await expect(member.getByTestId("approval-pending")).toHaveCount(0);
  await expect(member.getByTestId("message-assistant").last()).toContainText("APPROVAL_DENIED");
  await expect(member.getByTestId("composer-blocked")).toHaveCount(0);
  await member.screenshot({ path: path.join(SHOTS, "approvals-member-denied.png"), fullPage: true });
  await expectNotReloaded(member);
  await expectNotReloaded(owner);
  await close();
});

test("allow once (keyboard o): the command runs once and the member's chat shows the result live", async ({
  browser,
  app,
}) => {
  const { member, owner, close } = await twoUsers(browser);
  await owner.goto("/approvals");
  await markNoReload(owner);
  await newCodingChat(member);
  await markNoReload(member);
  const marker = `e2e-once-${Date.now().toString(36)}.txt`;
  // `>>` makes the command unanalysable, so it needs an approval although it is harmless.
  const command = `echo once >> ${marker} && cat ${marker}`;
  await ask(member, command);
  await expect(member.getByTestId("approval-pending")).toContainText(command);

  const row = owner.getByTestId("pending-list").getByTestId("approval-row").filter({ hasText: marker });
  await expect(row).toHaveCount(1);
  await row.click();
  await expect(owner.getByTestId("approval-command")).toHaveText(command);
  await owner.keyboard.press("o");
  await expect(owner.getByTestId("pending-list").getByTestId("approval-row").filter({ hasText: marker })).toHaveCount(
    0,
  );

  const card = member.getByTestId("tool-call").filter({ hasText: "exec" }).last();
  await expect(card).toBeVisible({ timeout: 20_000 });
  await expect(member.getByTestId("approval-pending")).toHaveCount(0);
  await expect(member.getByTestId("message-assistant").last()).toContainText('The tool "exec" returned');
  await expect(member.getByTestId("message-assistant").last()).toContainText("once");
  await member.screenshot({ path: path.join(SHOTS, "approvals-member-allowed.png"), fullPage: true });
  const file = path.join(app.workspaceRoot, memberId, marker);
  expect(fs.readFileSync(file, "utf8")).toBe("once\n");
  // A reload shows the same outcome (from the database), and nothing runs again.
  await member.reload();
  await expect(member.getByTestId("message-assistant").last()).toContainText("once");
  expect(fs.readFileSync(file, "utf8")).toBe("once\n");
  await expectNotReloaded(owner);
  await close();
});

test("the member reloads while the approval is pending; the decision still lands live after the reload", async ({
  browser,
}) => {
  const { member, owner, close } = await twoUsers(browser);
  await newCodingChat(member);
  await ask(member, "rm -rf data");
  await expect(member.getByTestId("approval-pending")).toBeVisible();
  await member.reload();
  await expect(member.getByTestId("approval-pending")).toBeVisible();
  await markNoReload(member);
  const sessionId = member.url().split("/").pop()!;
  const approval = db
    .prepare(`SELECT sessionId FROM "Approval" WHERE sessionId = ? AND status = 'pending'`)
    .get(sessionId) as { sessionId: string };
  expect(approval).toBeTruthy();
  await owner.goto("/approvals");
  await owner
    .getByTestId("pending-list")
    .getByTestId("approval-row")
    .filter({ hasText: "rm -rf data" })
    .first()
    .click();
  // The record names the chat by its title; its link leads to this session.
  await expect(
    owner.getByTestId("approval-detail").getByRole("link", { name: /open the conversation/ }),
  ).toHaveAttribute("href", `/approvals/sessions/${approval.sessionId}`);
  await owner.keyboard.press("d");
  await expect(member.getByTestId("tool-denied")).toHaveAttribute("data-error-code", "APPROVAL_DENIED", {
    timeout: 20_000,
  });
  await expectNotReloaded(member);
  await close();
});

test("the inbox is usable on a phone in dark mode: no horizontal scrolling, the decision buttons reachable", async ({
  browser,
}) => {
  const memberCtx = await browser.newContext();
  const member = await memberCtx.newPage();
  await signInAs(member, "member@example.com");
  const session = await (await member.request.post("/api/sessions", { data: {} })).json();
  const command = `echo "a long command line that must wrap on a phone instead of widening the page" >> phone-${Date.now()}.txt`;
  const req = await member.request.post("/api/approvals", {
    data: { sessionId: session.id, toolName: "exec", callId: `phone-${Date.now()}`, args: { command } },
  });
  expect(req.status()).toBe(202);

  const ownerCtx = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: "dark" });
  const owner = await ownerCtx.newPage();
  await signInAs(owner, "owner@example.com");
  await owner.goto("/approvals");
  await owner.getByTestId("pending-list").getByTestId("approval-row").filter({ hasText: "phone-" }).first().click();
  await expect(owner.getByTestId("approval-command")).toContainText("a long command line");
  const deny = owner.getByTestId("approval-detail").getByRole("button", { name: /Deny/ });
  await deny.scrollIntoViewIfNeeded();
  await expect(deny).toBeVisible();
  await owner.screenshot({ path: path.join(SHOTS, "approvals-inbox-phone-dark.png"), fullPage: true });
  // The inbox itself fits the phone's width (the command wraps instead of widening the page).
  for (const testId of ["approval-detail", "pending-list", "approval-command"]) {
    const box = (await owner.getByTestId(testId).boundingBox())!;
    expect(box.x + box.width, testId).toBeLessThanOrEqual(390);
  }
  await deny.click();
  await expect(owner.getByTestId("pending-list").getByTestId("approval-row").filter({ hasText: "phone-" })).toHaveCount(
    0,
  );
  await Promise.all([memberCtx.close(), ownerCtx.close()]);
});

// Issue 11, card states: pending → approved (by whom, when) → running with Stop → "Stopped by you", live on every
// open tab of the session, and the same after a reload (never a raw failure).
test("card states follow the call live on two tabs of the session: running with Stop, then Stopped by you", async ({
  browser,
  app,
}) => {
  const { member, owner, close } = await twoUsers(browser);
  await newCodingChat(member);
  const second = await member.context().newPage();
  await second.goto(member.url());
  await markNoReload(second);
  const marker = `e2e-stop-${Date.now().toString(36)}`;
  const command = `sleep 20 && echo ${marker} >> ${marker}.txt`;
  await ask(member, command);
  for (const tab of [member, second])
    await expect(tab.getByTestId("approval-pending")).toHaveAttribute("data-call-status", "pending", {
      timeout: 20_000,
    });

  await owner.goto("/approvals");
  await owner.getByTestId("pending-list").getByTestId("approval-row").filter({ hasText: marker }).click();
  await expect(owner.getByTestId("approval-command")).toHaveText(command);
  await owner.keyboard.press("o");

  for (const tab of [member, second]) {
    const card = tab.getByTestId("approval-pending");
    await expect(card).toHaveAttribute("data-call-status", "running", { timeout: 20_000 });
    await expect(card).toContainText("allowed by owner@example.com");
    await expect(card.getByRole("button", { name: /stop/i })).toBeVisible();
  }
  await second.screenshot({ path: path.join(SHOTS, "card-running-second-tab.png"), fullPage: true });
  await member.getByTestId("approval-pending").getByRole("button", { name: /stop/i }).click();
  for (const tab of [member, second]) {
    await expect(tab.getByText("Stopped by you").first()).toBeVisible({ timeout: 20_000 });
    await expect(tab.getByText(/SIGKILL|"signal"/)).toHaveCount(0);
  }
  await expectNotReloaded(second);
  await member.reload();
  await expect(member.getByText("Stopped by you").first()).toBeVisible();
  await expect(member.getByText(/SIGKILL|"signal"/)).toHaveCount(0);
  expect(fs.existsSync(path.join(app.workspaceRoot, memberId, `${marker}.txt`))).toBe(false);
  await close();
});
