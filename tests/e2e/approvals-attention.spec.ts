// Issue 31, in the browser: an owner's tab carries the count of requests they can decide in its title and on its
// favicon; with notifications allowed (granted in the browser context) and the tab hidden, each new request is
// notified once, and the notification's click opens that request in the inbox; a request the owner cannot decide
// (their own, under four eyes) changes nothing; a visible tab gets no notification. Then screenshots of the pages
// this issue changed or added, at 1280×800 and 390×844, light and dark.
import fs from "node:fs";
import path from "node:path";
import { type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { expect, test } from "./fixtures";
import { SCREENS, SHOTS_DIR, signInAs } from "./helpers";

let db: Database.Database;

test.beforeAll(async ({ app }) => {
  db = new Database(app.databaseFile, { timeout: 10_000 });
  const id = (email: string) => (db.prepare(`SELECT id FROM "User" WHERE email = ?`).get(email) as { id: string }).id;
  const last = db.prepare(`SELECT MAX(version) AS v FROM "PolicyVersion"`).get() as { v: number | null };
  db.prepare(`INSERT INTO "PolicyVersion" (version, document, comment, createdAt) VALUES (?, ?, ?, ?)`).run(
    (last.v ?? 0) + 1,
    JSON.stringify({
      modeGrants: {
        users: {
          [id("member@example.com")]: ["chat_safe", "coding"],
          [id("owner@example.com")]: ["chat_safe", "coding"],
        },
      },
    }),
    "e2e attention: member and owner get coding",
    new Date().toISOString().replace("Z", "+00:00"),
  );
});

test.afterAll(() => db?.close());

// Debian's Chromium headless shell has no notification platform: its Notification.permission is "denied" whatever
// the context grants (navigator.permissions does report the grant). The stand-in below is the browser's
// notification display only: a Notification whose permission is the context's permission state (granted / denied,
// "prompt" read as "default"), and which records what the page shows instead of drawing it. It also lets the test
// say whether the tab is hidden: a headless page is always "visible".
const RECORD = `
  window.__hidden = false;
  Object.defineProperty(document, "visibilityState", { get: () => (window.__hidden ? "hidden" : "visible") });
  Object.defineProperty(document, "hidden", { get: () => window.__hidden });
  window.__notes = [];
  let state = "default";
  navigator.permissions.query({ name: "notifications" }).then((s) => {
    const read = () => (state = s.state === "prompt" ? "default" : s.state);
    read();
    s.onchange = read;
  });
  class Recorded extends EventTarget {
    static get permission() { return state; }
    static requestPermission() { return Promise.resolve(state); }
    constructor(title, options = {}) { super(); this.title = title; this.tag = options.tag ?? ""; this.body = options.body ?? ""; this.onclick = null; window.__notes.push(this); }
    close() { this.closed = true; }
  }
  window.Notification = Recorded;
`;

type Notes = Array<{ title: string; tag: string; body: string }>;
const notes = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as { __notes: Notification[] }).__notes.map((n) => ({
      title: n.title,
      tag: n.tag,
      body: n.body,
    })),
  ) as Promise<Notes>;
const hide = (page: Page, hidden: boolean) =>
  page.evaluate((h) => ((window as unknown as { __hidden: boolean }).__hidden = h), hidden);

async function codingChat(page: Page) {
  const before = page.url();
  await page
    .getByRole("button", { name: /new chat/i })
    .first()
    .click();
  await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
  await expect.poll(() => page.url()).not.toBe(before);
  const mode = page.getByLabel("Mode");
  await expect(mode).toBeEnabled();
  await mode.selectOption("coding");
  await expect(mode).toHaveValue("coding");
  await expect(mode).toBeEnabled();
}

async function ask(page: Page, command: string) {
  await page.getByLabel("Message").fill(`/tool exec ${JSON.stringify({ command })}`);
  await page.getByLabel("Message").press("Enter");
  await expect(page.getByTestId("approval-pending").last()).toBeVisible({ timeout: 20_000 });
}

test("title, favicon and one notification per decidable request while hidden; the click opens it", async ({
  browser,
  app,
}) => {
  test.setTimeout(150_000);
  const ownerCtx = await browser.newContext({ viewport: { width: 1280, height: 800 }, permissions: ["notifications"] });
  await ownerCtx.grantPermissions(["notifications"], { origin: app.url });
  await ownerCtx.addInitScript(RECORD);
  const memberCtx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const owner = await ownerCtx.newPage();
  const ownerOwnChat = await ownerCtx.newPage();
  const member = await memberCtx.newPage();
  try {
    await signInAs(owner, "owner@example.com");
    await signInAs(member, "member@example.com");
    await expect.poll(() => owner.evaluate(() => Notification.permission)).toBe("granted");
    // This worker's app is shared with other spec files: requests they left pending would be counted too. Deny every
    // one this owner may decide (their own are refused, and not counted), so the count starts from nothing.
    const pending = (await (await owner.request.get("/api/approvals?status=pending&limit=100")).json()) as {
      approvals: Array<{ id: string }>;
    };
    for (const { id } of pending.approvals)
      await owner.request.post(`/api/approvals/${id}/decision`, {
        data: { decision: "deny", reason: "cleared by the attention test" },
      });
    await expect(owner).toHaveTitle(/^(?!\(\d+\) ).*Toolgate$/, { timeout: 20_000 });

    // Hidden tab: the member's request is counted and notified once.
    await hide(owner, true);
    await codingChat(member);
    await ask(member, "rm -rf build-cache");
    await expect(owner).toHaveTitle(/^\(1\) .*Toolgate$/, { timeout: 20_000 });
    await expect(owner.locator('link[rel="icon"][data-toolgate-badge]')).toHaveAttribute("data-count", "1");
    expect(await owner.locator('link[rel="icon"][data-toolgate-badge]').getAttribute("href")).toMatch(
      /^data:image\/png;base64,/,
    );
    await expect.poll(() => notes(owner), { timeout: 20_000 }).toHaveLength(1);
    const [note] = await notes(owner);
    expect(note).toMatchObject({
      title: "Approval needed: exec",
      body: expect.stringContaining("member@example.com: rm -rf build-cache"),
    });
    const approvalId = note!.tag.replace("toolgate-approval-", "");

    // The owner's own request (four eyes: not theirs to decide): no count, no notification.
    await signInAs(ownerOwnChat, "owner@example.com");
    await codingChat(ownerOwnChat);
    await ask(ownerOwnChat, "rm -rf own-cache");
    // Any later event re-reads the list; a second member request proves the page has caught up.
    await hide(owner, false);
    await codingChat(member); // the first chat waits for its decision: a new one asks again
    await ask(member, "rm -rf second-cache");
    await expect(owner).toHaveTitle(/^\(2\) .*Toolgate$/, { timeout: 20_000 });
    await owner.waitForTimeout(1_500);
    // Visible tab: counted, not notified; the first request was notified once only.
    expect(await notes(owner)).toHaveLength(1);

    // The notification's click opens that request in the inbox.
    await owner.evaluate(() =>
      (window as unknown as { __notes: Notification[] }).__notes[0]!.onclick!(new Event("click")),
    );
    await expect(owner).toHaveURL(new RegExp(`/approvals\\?open=${approvalId}$`));
    await expect(owner.getByTestId("approval-command")).toHaveText("rm -rf build-cache");
    await expect(owner).toHaveTitle(/^\(2\) .*Toolgate$/);
  } finally {
    await ownerCtx.close();
    await memberCtx.close();
  }
});

test("screens: the inbox header, the decision page and the admin's notification log", async ({ browser, app }) => {
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  for (const screen of SCREENS) {
    const ctx = await browser.newContext({
      viewport: { width: screen.width, height: screen.height },
      colorScheme: screen.scheme,
    });
    await ctx.addInitScript(RECORD);
    const page = await ctx.newPage();
    await signInAs(page, "admin@example.com");
    await page.goto("/approvals");
    await expect(page.getByRole("heading", { name: /Approvals/ })).toBeVisible();
    await expect(page.getByRole("button", { name: "Notify me of new requests" })).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS_DIR, `attention-inbox-${screen.name}.png`) });
    await page.goto("/admin/notifications");
    await expect(page.getByRole("heading", { name: "Notifications" })).toBeVisible();
    await page.screenshot({
      path: path.join(SHOTS_DIR, `attention-admin-notifications-${screen.name}.png`),
      fullPage: true,
    });
    const pendingId = (
      db.prepare(`SELECT id FROM "Approval" WHERE status = 'pending' ORDER BY createdAt LIMIT 1`).get() as
        { id: string } | undefined
    )?.id;
    if (pendingId) {
      await page.goto(`/decide/${pendingId}`);
      await expect(page.getByRole("button", { name: "Allow once" })).toBeVisible();
      await page.screenshot({ path: path.join(SHOTS_DIR, `attention-decide-${screen.name}.png`), fullPage: true });
    }
    await ctx.close();
  }
  expect(app.url).toBeTruthy();
});
