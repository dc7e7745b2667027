// Issue 15, sessions: rename, delete with Undo and search in the list, all by keyboard; two tabs of one chat stay
// in step (a message, a rename, a mode switch); a mode switch leaves a marker line that both tabs and the
// read-only review show; an unknown chat is a not-found page inside the app; the favicon is served.
import { expect, test } from "./fixtures";
import { consoleProblems, openNewChat, SCREENS, signInAs, SHOTS_DIR } from "./helpers";

const SHOTS = SHOTS_DIR;

async function rename(page: import("@playwright/test").Page, title: string) {
  await page.getByRole("button", { name: "Rename chat" }).focus();
  await page.keyboard.press("Enter");
  const input = page.getByLabel("Chat title");
  await expect(input).toBeFocused();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type(title);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("chat-title")).toHaveText(title);
}

for (const screen of SCREENS) {
  test(`rename, search, delete and undo by keyboard at ${screen.name}`, async ({ browser }) => {
    const ctx = await browser.newContext({
      viewport: { width: screen.width, height: screen.height },
      colorScheme: screen.scheme,
    });
    const page = await ctx.newPage();
    const problems = consoleProblems(page);
    await signInAs(page, "owner@example.com");
    const tag = `${screen.name}-${Date.now().toString(36)}`;
    const id = await openNewChat(page);
    await rename(page, `Budget ${tag}`);
    // Escape leaves the title as it was.
    await page.getByRole("button", { name: "Rename chat" }).focus();
    await page.keyboard.press("Enter");
    await page.keyboard.type(" not saved");
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("chat-title")).toHaveText(`Budget ${tag}`);
    await expect(page.getByRole("button", { name: "Rename chat" })).toBeFocused();

    const list = page.getByRole("complementary", { name: "Chat sessions" });
    if (screen.size === "phone") await list.getByRole("button", { name: /^Chats \(\d+\)$/ }).click();
    await expect(list.getByRole("link", { name: new RegExp(`Budget ${tag}`) })).toBeVisible();
    // A second chat, so the search has something to leave out.
    await page.getByLabel("Message").fill(`holiday ${tag}`);
    await page.getByLabel("Message").press("Enter");
    await expect(page.getByTestId("message-assistant").last()).toBeVisible({ timeout: 20_000 });
    const other = await openNewChat(page);
    await page.getByLabel("Message").fill(`Groceries ${tag}`);
    await page.getByLabel("Message").press("Enter");
    await expect(page.getByTestId("chat-title")).toHaveText(`Groceries ${tag}`, { timeout: 20_000 });
    if (screen.size === "phone") await list.getByRole("button", { name: /^Chats \(\d+\)$/ }).click();
    await list.getByLabel("Search chats").fill(`budget ${tag}`);
    await expect(list.getByRole("link")).toHaveCount(1);
    await expect(list.getByRole("link")).toContainText(`Budget ${tag}`);
    await list.getByLabel("Search chats").fill(`nothing like this ${tag}`);
    await expect(list.getByRole("status")).toContainText("No chat title contains");
    await list.getByLabel("Search chats").fill(tag);
    await expect(list.getByRole("link")).toHaveCount(2);
    await page.screenshot({ path: `${SHOTS}/sessions-search-${screen.name}.png` });

    // Delete the open chat by keyboard; Undo (focused for the keyboard) brings it back.
    expect(new URL(page.url()).pathname).toBe(`/chat/${other}`);
    await page.getByRole("button", { name: "Delete chat" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/chat\\?deleted=${other}$`));
    const toast = page.getByTestId("undo-delete");
    await expect(toast).toContainText("Chat deleted.");
    await expect(toast.getByRole("button", { name: "Undo" })).toBeFocused();
    if (screen.size === "phone") await list.getByRole("button", { name: /^Chats \(\d+\)$/ }).click();
    await expect(list.getByRole("link", { name: new RegExp(`Groceries ${tag}`) })).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/sessions-deleted-${screen.name}.png` });
    expect((await page.request.get(`/api/sessions/${other}`)).status()).toBe(404);
    await toast.getByRole("button", { name: "Undo" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/chat/${other}$`));
    await expect(page.getByTestId("chat-title")).toHaveText(`Groceries ${tag}`);
    expect((await page.request.get(`/api/sessions/${id}`)).status()).toBe(200);
    expect(problems).toEqual([]);
    await ctx.close();
  });
}

test("two tabs of one chat stay in step: a message, a rename and a mode switch show in the other", async ({
  browser,
}) => {
  // Two pages, a turn, a mode switch, a review and a delete: more than one minute on a busy two-core machine.
  test.setTimeout(150_000);
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const a = await ctx.newPage();
  await signInAs(a, "admin@example.com");
  const id = await openNewChat(a);
  const b = await ctx.newPage();
  // b's event stream is connected before a acts: what b shows next comes live, not from a page load.
  const connected = b.waitForResponse((r) => r.url().endsWith(`/api/me/events?session=${id}`));
  await b.goto(`/chat/${id}`);
  await expect(b.getByTestId("chat-title")).toHaveText("New chat");
  await connected;

  await a.getByLabel("Message").fill("what time is it?");
  await a.getByLabel("Message").press("Enter");
  await expect(b.getByTestId("message-user")).toHaveText("what time is it?", { timeout: 15_000 });
  await expect(b.getByTestId("message-assistant").last()).toContainText('The tool "current_time" returned the time', {
    timeout: 15_000,
  });
  await expect(b.getByTestId("chat-title")).toHaveText("what time is it?");

  await rename(a, "Clock questions");
  await expect(b.getByTestId("chat-title")).toHaveText("Clock questions", { timeout: 15_000 });
  await expect(
    b.getByRole("complementary", { name: "Chat sessions" }).getByRole("link", { name: /Clock questions/ }),
  ).toBeVisible();

  await a.getByLabel("Mode").selectOption("coding");
  await expect(b.getByTestId("mode-badge")).toContainText("coding", { timeout: 15_000 });
  for (const page of [a, b]) {
    await expect(page.getByTestId("mode-marker")).toHaveCount(1);
    await expect(page.getByTestId("mode-marker")).toContainText("Mode switched from chat_safe to coding");
  }
  await b.screenshot({ path: `${SHOTS}/two-tabs-second.png` });

  // The marker is stored: a reload and the owners' read-only review show it too.
  await b.reload();
  await expect(b.getByTestId("mode-marker")).toContainText("to coding");
  await b.goto(`/approvals/sessions/${id}`);
  await expect(b.getByTestId("review-transcript").getByTestId("mode-marker")).toContainText(
    "Mode switched from chat_safe to coding",
  );

  // Deleting the chat in one tab takes the other back to the list, with the same Undo.
  const again = b.waitForResponse((r) => r.url().endsWith(`/api/me/events?session=${id}`));
  await b.goto(`/chat/${id}`);
  await again;
  await expect(b.getByTestId("chat-title")).toHaveText("Clock questions");
  await a.getByRole("button", { name: "Delete chat" }).click();
  await expect(b).toHaveURL(new RegExp(`/chat\\?deleted=${id}$`), { timeout: 15_000 });
  await expect(b.getByTestId("undo-delete")).toContainText("Chat deleted.");
  await ctx.close();
});

for (const screen of SCREENS) {
  test(`an unknown chat is a not-found page inside the app at ${screen.name}; the favicon is served`, async ({
    browser,
  }) => {
    const ctx = await browser.newContext({
      viewport: { width: screen.width, height: screen.height },
      colorScheme: screen.scheme,
    });
    const page = await ctx.newPage();
    const problems = consoleProblems(page);
    await signInAs(page, "member@example.com");
    const res = await page.goto("/chat/nope");
    expect(res!.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Chat not found" })).toBeVisible();
    // On a phone the navigation is behind the Menu button.
    if (screen.width < 640) await page.getByRole("button", { name: "Menu" }).click();
    await expect(page.getByRole("navigation").getByRole("link", { name: "Chat" })).toBeVisible();
    await expect(page.getByTestId("current-user")).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/not-found-${screen.name}.png` });
    await page.getByRole("link", { name: "Back to your chats" }).click();
    await expect(page).toHaveURL(/\/chat$/);
    const ico = await page.request.get("/favicon.ico");
    expect(ico.status()).toBe(200);
    expect(ico.headers()["content-type"]).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
    const icon = page.locator('head link[rel="icon"][type="image/svg+xml"]');
    const href = await icon.getAttribute("href");
    expect((await page.request.get(href!)).status()).toBe(200);
    // Console 404s for the 404 page itself are expected; nothing else may appear.
    expect(problems.filter((p) => !/404/.test(p))).toEqual([]);
    await ctx.close();
  });
}
