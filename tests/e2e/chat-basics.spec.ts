// Issue 32, the chat basics in Chromium at desktop and phone width (light and dark): clickable starters in an empty
// chat, a <time> on every message, copy a message, edit and resend (a truncation: the old question and answer are
// gone), regenerate the last answer, ask_user's choices as buttons (the click is the reply, then the question is
// closed), an Enter that ends an IME composition does not send, search finds message text (not only titles), and
// the chat list is grouped by date.
import { expect, test } from "./fixtures";
import { SCREENS, consoleProblems, openNewChat, shotPath, signInAs } from "./helpers";

for (const screen of SCREENS) {
  test(`chat basics at ${screen.name}`, async ({ browser, baseURL }) => {
    const ctx = await browser.newContext({
      baseURL,
      viewport: { width: screen.width, height: screen.height },
      colorScheme: screen.scheme,
      permissions: ["clipboard-read", "clipboard-write"],
    });
    const page = await ctx.newPage();
    const problems = consoleProblems(page);
    await signInAs(page, "member@example.com");
    await openNewChat(page);
    const users = page.getByTestId("message-user");
    const answers = page.getByTestId("message-assistant");
    const box = page.getByLabel("Message");

    // Starters: a click sends the first message.
    const starters = page.getByRole("list", { name: "Starter prompts" });
    await expect(starters.getByRole("button").first()).toBeVisible();
    await page.screenshot({ path: shotPath(`chat-basics-empty-${screen.name}.png`) });
    await starters.getByRole("button", { name: "What time is it?" }).click();
    await expect(users).toHaveCount(1);
    await expect(users.first()).toHaveText("What time is it?");
    await expect(answers.last()).toContainText("current_time", { timeout: 20_000 });

    // Every message has a machine-readable time; once stored, Edit and Regenerate are offered.
    const rows = page.locator("li[data-message-id]");
    await expect(rows.first().locator("time[datetime]")).toHaveCount(1);
    await expect(rows.last().locator("time[datetime]")).toHaveCount(1);
    const regenerate = page.getByRole("button", { name: "Regenerate answer" });
    await expect(regenerate).toBeEnabled({ timeout: 15_000 });

    // Copy a message.
    await rows.first().getByRole("button", { name: "Copy message" }).click();
    await expect(rows.first().getByRole("button", { name: /Copied/ })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("What time is it?");

    // Regenerate: still one question and one answer.
    const firstAnswerId = await rows.last().getAttribute("data-message-id");
    await regenerate.click();
    await expect(answers).toHaveCount(1, { timeout: 20_000 });
    await expect(rows.last()).not.toHaveAttribute("data-message-id", firstAnswerId!, { timeout: 20_000 });
    await expect(users).toHaveCount(1);

    // Edit and resend: the question is replaced, the old answer goes with it.
    const tag = `okapi${Date.now().toString(36)}`;
    await expect(page.getByRole("button", { name: "Edit message" })).toBeEnabled({ timeout: 15_000 });
    await page.getByRole("button", { name: "Edit message" }).click();
    await page.getByLabel("Edit message").fill(`say ${tag}`);
    await page.getByRole("button", { name: "Save and resend" }).click();
    await expect(users).toHaveCount(1);
    await expect(users.first()).toHaveText(`say ${tag}`);
    await expect(answers).toHaveCount(1, { timeout: 20_000 });
    await expect(
      page.getByRole("list", { name: "Transcript" }).getByText("What time is it?", { exact: true }),
    ).toHaveCount(0);
    await page.screenshot({ path: shotPath(`chat-basics-edited-${screen.name}.png`) });

    // An Enter that confirms an IME composition does not send; a plain Enter does.
    await expect(box).toBeEnabled();
    await box.fill("かな");
    await box.dispatchEvent("keydown", { key: "Enter", code: "Enter", keyCode: 229, isComposing: true });
    await expect(box).toHaveValue("かな");
    await expect(users).toHaveCount(1);
    await box.fill("");

    // ask_user: the choices are buttons; a click is the reply, and the question is closed afterwards.
    await expect(page.getByRole("button", { name: "Regenerate answer" })).toBeEnabled({ timeout: 15_000 });
    await box.fill(`/tool ask_user ${JSON.stringify({ question: "Which colour?", choices: ["red", "blue"] })}`);
    await box.press("Enter");
    const question = page.getByRole("group", { name: "Question from the agent" });
    await expect(question).toContainText("Which colour?", { timeout: 20_000 });
    await expect(question.getByRole("button", { name: "red" })).toBeEnabled({ timeout: 15_000 });
    await page.screenshot({ path: shotPath(`chat-basics-ask-user-${screen.name}.png`) });
    await question.getByRole("button", { name: "red" }).click();
    await expect(users.last()).toHaveText("red");
    await expect(question.getByRole("button", { name: "blue" })).toBeDisabled();
    await expect(answers.last()).toBeVisible({ timeout: 20_000 });

    // Search finds the text of a message (the chat's title is the first message, not the edited one).
    if (screen.size === "phone") await page.getByRole("button", { name: /^Chats \(/ }).click();
    await expect(page.getByTestId("date-group").first()).toHaveText("Today");
    await page.getByLabel("Search chats").fill(tag);
    const hits = page.getByRole("region", { name: "Messages found" }).getByTestId("search-hit");
    await expect(hits.first()).toContainText(tag, { timeout: 15_000 });
    await page.screenshot({ path: shotPath(`chat-basics-search-${screen.name}.png`) });
    expect(problems).toEqual([]);
    await ctx.close();
  });
}
