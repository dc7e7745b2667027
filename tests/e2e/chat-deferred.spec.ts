// Issue 31 in the browser: a request that outlives its turn's wait. The member's card turns into "Waiting for an
// owner (this chat no longer waits)" with a Withdraw button, the composer is free again, and withdrawing stops the
// call. The wait (APPROVAL_TURN_WAIT_SECONDS, 600 s in the worker's app) is passed by dating the waiting run back in
// the database; the app's own sweep then ends the turn, as it would after ten minutes. Screens: 1280x800 and
// 390x844, light and dark.
import { expect, test } from "./fixtures";
import Database from "better-sqlite3";
import { shotPath, signInAs, SCREENS } from "./helpers";

let db: Database.Database;

test.beforeAll(async ({ app }) => {
  db = new Database(app.databaseFile, { timeout: 10_000 });
  const memberId = (db.prepare(`SELECT id FROM "User" WHERE email = ?`).get("member@example.com") as { id: string }).id;
  const last = db.prepare(`SELECT MAX(version) AS v FROM "PolicyVersion"`).get() as { v: number | null };
  db.prepare(`INSERT INTO "PolicyVersion" (version, document, comment, createdAt) VALUES (?, ?, ?, ?)`).run(
    (last.v ?? 0) + 1,
    JSON.stringify({ modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } } }),
    "e2e deferred: member gets coding",
    new Date().toISOString().replace("Z", "+00:00"),
  );
});

test.afterAll(() => db?.close());

test("a request that outlives the turn's wait: the card says so, the chat is free, and Withdraw takes the request back", async ({
  page,
}) => {
  await signInAs(page, "member@example.com");
  await page
    .getByRole("button", { name: /new chat/i })
    .first()
    .click();
  await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
  const sessionId = new URL(page.url()).pathname.split("/").pop()!;
  const mode = page.getByLabel("Mode");
  await expect(mode).toBeEnabled();
  await mode.selectOption("coding");
  await expect(mode).toHaveValue("coding");
  await expect(mode).toBeEnabled();
  await page.getByLabel("Message").fill(`/tool exec ${JSON.stringify({ command: "echo deferred-e2e" })}`);
  await page.getByLabel("Message").press("Enter");
  const card = page.getByTestId("approval-pending").filter({ hasText: "echo deferred-e2e" });
  await expect(card).toBeVisible();
  await expect(page.getByTestId("composer-blocked")).toBeVisible();

  // Ten minutes later, as far as the sweep can tell.
  const longAgo = new Date(Date.now() - 3_600_000).toISOString().replace("Z", "+00:00");
  db.prepare(`UPDATE "AgentRun" SET updatedAt = ? WHERE sessionId = ? AND status = 'waiting_approval'`).run(
    longAgo,
    sessionId,
  );
  await expect(card).toContainText("this chat no longer waits", { timeout: 30_000 });
  await expect(page.getByTestId("composer-blocked")).toHaveCount(0);
  const withdraw = card.getByRole("button", { name: "Withdraw request" });
  await expect(withdraw).toBeVisible();
  await expect(card.getByRole("button", { name: "Stop" })).toHaveCount(0);

  for (const screen of SCREENS) {
    await page.setViewportSize({ width: screen.width, height: screen.height });
    await page.emulateMedia({ colorScheme: screen.scheme });
    await card.scrollIntoViewIfNeeded();
    await expect(withdraw).toBeVisible();
    await page.screenshot({ path: shotPath(`chat-deferred-${screen.name}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });

  await withdraw.click();
  await expect(page.getByTestId("tool-stopped").filter({ hasText: "exec" }).last()).toBeVisible({ timeout: 30_000 });
  const approval = db.prepare(`SELECT status, resolveReason FROM "Approval" WHERE sessionId = ?`).get(sessionId) as {
    status: string;
    resolveReason: string;
  };
  expect(approval).toEqual({ status: "expired", resolveReason: "withdrawn by the requester" });
});
