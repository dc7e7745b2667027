// Issue 15, the composer: a new chat puts the cursor in the message box, and a send that never reaches the server
// (offline: the request fails in the browser) keeps the text for a retry instead of losing it; the retry then works.
// At desktop and phone width, light and dark.
import { expect, test } from "./fixtures";
import { signInAs } from "./helpers";

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

for (const scheme of ["light", "dark"] as const) {
  for (const size of SIZES) {
    test(`composer at ${size.name} width in ${scheme} mode: focus on a new chat, a failed send keeps the text`, async ({
      browser,
    }) => {
      const ctx = await browser.newContext({
        viewport: { width: size.width, height: size.height },
        colorScheme: scheme,
      });
      const page = await ctx.newPage();
      await signInAs(page, "member@example.com");
      await page
        .getByRole("button", { name: /new chat/i })
        .first()
        .click();
      await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
      const box = page.getByLabel("Message");
      await expect(box).toBeFocused();

      await page.route("**/api/chat", (route) => route.abort("internetdisconnected"));
      await page.keyboard.type("what time is it?");
      await page.keyboard.press("Enter");
      await expect(page.getByRole("alert").filter({ hasText: "Not sent" })).toContainText(
        "Your message is back in the box",
      );
      await expect(box).toHaveValue("what time is it?");
      await expect(page.getByTestId("message-user")).toHaveCount(0);
      await page.screenshot({
        path: `playwright-report/screens/chat-send-failed-${size.name}-${scheme}.png`,
        fullPage: false,
      });

      await page.unroute("**/api/chat");
      await box.press("Enter");
      await expect(page.getByTestId("message-assistant").last()).toBeVisible({ timeout: 20_000 });
      await expect(page.getByTestId("message-user")).toHaveCount(1);
      await expect(box).toHaveValue("");
      await ctx.close();
    });
  }
}

test("New chat does not leave empty chats behind: an untouched chat is opened again, a used one is not", async ({
  browser,
}) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInAs(page, "member@example.com");
  // The button posts a server action that redirects; wait for that answer, not just for a /chat/<id> URL (the page
  // may already be on one).
  const newChat = async () => {
    const answered = page.waitForResponse(
      (r) => r.request().method() === "POST" && new URL(r.url()).pathname.startsWith("/chat"),
    );
    await page
      .getByRole("button", { name: /new chat/i })
      .first()
      .click();
    await answered;
    await page.waitForLoadState();
    await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
    return page.url();
  };
  const first = await newChat();
  const count = await page.getByRole("complementary", { name: "Chat sessions" }).getByRole("link").count();
  expect(await newChat()).toBe(first);
  expect(await newChat()).toBe(first);
  await expect(page.getByRole("complementary", { name: "Chat sessions" }).getByRole("link")).toHaveCount(count);
  // A fresh load of that chat, so typing does not race the redirect's re-render.
  await page.goto(first);
  await expect(page.getByLabel("Message")).toBeFocused();
  await page.getByLabel("Message").fill("what time is it?");
  await page.getByLabel("Message").press("Enter");
  await expect(page.getByTestId("message-assistant").last()).toBeVisible({ timeout: 20_000 });
  await page
    .getByRole("button", { name: /new chat/i })
    .first()
    .click();
  await expect(page).not.toHaveURL(first);
  await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
  await ctx.close();
});

for (const scheme of ["light", "dark"] as const) {
  test(`on a phone (${scheme}) the chat list folds away behind a toggle; on a desktop it is always shown`, async ({
    browser,
  }) => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: scheme });
    const page = await ctx.newPage();
    await signInAs(page, "member@example.com");
    await page
      .getByRole("button", { name: /new chat/i })
      .first()
      .click();
    await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
    const list = page.getByRole("complementary", { name: "Chat sessions" });
    const toggle = list.getByRole("button", { name: /^Chats \(\d+\)$/ });
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await expect(list.getByRole("link").first()).toBeHidden();
    // The conversation has the screen: the composer sits in the lower half, the aside takes a strip at the top.
    expect((await list.boundingBox())!.height).toBeLessThan(100);
    await page.screenshot({ path: `playwright-report/screens/chat-phone-folded-${scheme}.png` });
    await toggle.click();
    await expect(list.getByRole("button", { name: "Hide chats" })).toHaveAttribute("aria-expanded", "true");
    await expect(list.getByRole("link").first()).toBeVisible();
    await page.screenshot({ path: `playwright-report/screens/chat-phone-open-${scheme}.png` });
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(list.getByRole("link").first()).toBeVisible();
    await expect(list.getByRole("button", { name: /Chats|Hide chats/ })).toBeHidden();
    await ctx.close();
  });
}
