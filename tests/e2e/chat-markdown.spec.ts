// Issue 15, the transcript: assistant text is Markdown (lists, tables, highlighted code with a copy button) under
// the strict CSP, hostile HTML and javascript: links from the model stay inert, and tool cards read like results
// (collapsed to a summary line; output, error output, exit status and cut marked when opened; a non-zero exit is
// "failed"; a missing file is "not found"). The offline model's own answer is prose, not JSON. At desktop and
// phone width, light and dark.
import { expect, test } from "./fixtures";
import { consoleProblems, openNewChat, SCREENS, signInAs, SHOTS_DIR } from "./helpers";
import { storeLines, toolCallLines } from "./chat-store";

const SHOTS = SHOTS_DIR;

const MARKDOWN = [
  "Here is **the plan**, with `inline code`:",
  "",
  "1. read the file",
  "2. run the tests",
  "",
  "| tool | mode |",
  "| --- | --- |",
  "| read | coding |",
  "",
  "```ts",
  "const answer: number = 42; // the answer",
  "export function twice(n: number) {",
  "  return `${n * 2} times`;",
  "}",
  "```",
].join("\n");

for (const screen of SCREENS) {
  test(`assistant Markdown and code blocks at ${screen.name}`, async ({ browser, app }) => {
    const ctx = await browser.newContext({
      viewport: { width: screen.width, height: screen.height },
      colorScheme: screen.scheme,
    });
    await ctx.grantPermissions(["clipboard-read", "clipboard-write"]);
    const page = await ctx.newPage();
    const problems = consoleProblems(page);
    await signInAs(page, "member@example.com");
    const id = await openNewChat(page);
    storeLines(app.databaseFile, id, [{ role: "assistant", content: MARKDOWN }]);
    await page.reload();
    const md = page.getByTestId("message-assistant").last().getByTestId("markdown");
    await expect(md.locator("strong")).toHaveText("the plan");
    await expect(md.locator("ol > li")).toHaveText(["read the file", "run the tests"]);
    await expect(md.locator("table td")).toHaveText(["read", "coding"]);
    await expect(md.locator("p code").first()).toHaveText("inline code");
    const block = md.getByTestId("code-block");
    // Highlighted: the keyword and the string are their own spans with the highlighter's classes.
    await expect(block.locator("code.language-ts .hljs-keyword").first()).toHaveText("const");
    await expect(block.locator(".hljs-comment")).toHaveText("// the answer");
    // A class, not an inline style (the CSP forbids those): the keyword's colour differs from plain text's.
    const colours = await block.evaluate((el) => [
      getComputedStyle(el.querySelector(".hljs-keyword")!).color,
      getComputedStyle(el.querySelector("pre")!).color,
    ]);
    expect(colours[0]).not.toBe(colours[1]);
    // Keyboard only: Tab reaches the copy button, Enter copies the code as text.
    const copy = block.getByRole("button", { name: "Copy code" });
    await copy.focus();
    await page.keyboard.press("Enter");
    await expect(block.getByRole("button", { name: /Copied/ })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      MARKDOWN.split("```ts\n")[1]!.split("```")[0],
    );
    await md.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/markdown-${screen.name}.png` });
    expect(problems).toEqual([]);
    await ctx.close();
  });
}

test("hostile HTML and javascript: links from the model render inert", async ({ page, app }) => {
  const problems = consoleProblems(page);
  await signInAs(page, "member@example.com");
  const id = await openNewChat(page);
  const hostile = [
    'Look: <img src=x onerror="window.__xss = 1"> and <script>window.__xss = 2</script>',
    "",
    '[click me](javascript:window.__xss=3) and <a href="javascript:window.__xss=4">raw link</a>',
    "",
    '![pixel](https://tracker.example/p.gif) <iframe src="https://evil.example"></iframe>',
    "",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [fine](https://example.com/docs)",
  ].join("\n");
  storeLines(app.databaseFile, id, [{ role: "assistant", content: hostile }]);
  await page.reload();
  const md = page.getByTestId("message-assistant").last().getByTestId("markdown");
  await expect(md).toContainText("<img src=x onerror=");
  await expect(md).toContainText("<script>window.__xss = 2</script>");
  await expect(md.locator("img, script, iframe")).toHaveCount(0);
  // The unsafe links keep their text but lose their target; the https link stays, opening elsewhere.
  const click = md.getByRole("link", { name: "click me" });
  expect(await click.getAttribute("href")).toBeFalsy();
  expect(await md.getByRole("link", { name: "data" }).getAttribute("href")).toBeFalsy();
  await expect(md.getByRole("link", { name: "fine" })).toHaveAttribute("href", "https://example.com/docs");
  await expect(md.getByRole("link", { name: "fine" })).toHaveAttribute("rel", /noopener/);
  await expect(md.getByRole("link", { name: "[image: pixel]" })).toHaveAttribute(
    "href",
    "https://tracker.example/p.gif",
  );
  await click.click();
  await page.waitForTimeout(200);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(page.url()).toContain(`/chat/${id}`);
  await page.screenshot({ path: `${SHOTS}/xss-inert.png` });
  expect(problems).toEqual([]);
});

const CURL6 = {
  exitCode: 6,
  signal: null,
  stdout: "",
  stderr: "curl: (6) Could not resolve host: nowhere.invalid\n",
  timedOut: false,
  aborted: false,
  truncated: false,
  durationMs: 31,
};
const LONG = {
  exitCode: 0,
  signal: null,
  stdout: Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n"),
  stderr: "",
  timedOut: false,
  aborted: false,
  truncated: true,
  durationMs: 8,
};

for (const screen of SCREENS) {
  test(`tool cards show results readably at ${screen.name}`, async ({ browser, app }) => {
    const ctx = await browser.newContext({
      viewport: { width: screen.width, height: screen.height },
      colorScheme: screen.scheme,
    });
    const page = await ctx.newPage();
    await signInAs(page, "member@example.com");
    const id = await openNewChat(page);
    storeLines(app.databaseFile, id, [
      ...toolCallLines("call_curl", "exec", { command: "curl https://nowhere.invalid" }, "ok", CURL6),
      ...toolCallLines("call_seq", "exec", { command: "seq 1 100000" }, "ok", LONG),
      ...toolCallLines("call_read", "read", { path: "missing.md" }, "error", {
        ok: false,
        error_code: "NOT_FOUND",
        tool_name: "read",
        message: "file not found: missing.md",
      }),
    ]);
    await page.reload();
    const cards = page.getByTestId("tool-call");
    await expect(cards).toHaveCount(3);
    const [curl, seq, read] = [cards.nth(0), cards.nth(1), cards.nth(2)];
    // Collapsed by default, each with its summary line.
    for (const card of [curl, seq, read]) await expect(card).not.toHaveAttribute("open");
    await expect(curl.getByTestId("tool-status")).toHaveText("failed");
    await expect(curl.getByTestId("tool-summary")).toHaveText("curl https://nowhere.invalid · exit 6");
    await expect(seq.getByTestId("tool-status")).toHaveText("done");
    await expect(seq.getByTestId("tool-summary")).toHaveText("seq 1 100000 · exit 0 · output cut");
    await expect(read.getByTestId("tool-status")).toHaveText("failed");
    await expect(read.getByTestId("tool-summary")).toContainText("not found: file not found: missing.md");
    await expect(read).not.toContainText("not allowed");
    // Keyboard only: focus a summary, Enter opens it.
    await curl.locator("summary").focus();
    await page.keyboard.press("Enter");
    await expect(curl).toHaveAttribute("open", "");
    await expect(curl.getByTestId("exit-status")).toContainText("Exit status 6 (failed)");
    await expect(curl.getByTestId("stderr")).toHaveText("curl: (6) Could not resolve host: nowhere.invalid\n");
    await expect(curl.getByTestId("stdout")).toHaveCount(0);
    await expect(curl).not.toContainText('"exitCode"');
    await seq.locator("summary").focus();
    await page.keyboard.press("Enter");
    await expect(seq.getByTestId("stdout")).toContainText("line 40");
    await expect(seq.getByTestId("truncated")).toContainText("Output cut");
    await read.locator("summary").focus();
    await page.keyboard.press("Enter");
    await expect(read.getByTestId("tool-error")).toHaveText("Failed: not found — file not found: missing.md");
    await curl.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/tool-cards-${screen.name}.png`, fullPage: false });
    await ctx.close();
  });
}

test("the offline model answers a failed call and a denial in prose, without JSON or the card's text", async ({
  page,
}) => {
  await signInAs(page, "admin@example.com");
  await openNewChat(page);
  await page.getByLabel("Mode").selectOption("coding");
  await expect(page.getByTestId("mode-badge")).toContainText("coding");
  await page.getByLabel("Message").fill('/tool read {"path":"no-such-notes.md"}');
  await page.getByLabel("Message").press("Enter");
  const answer = page.getByTestId("message-assistant").last();
  await expect(answer.getByTestId("markdown")).toContainText('The tool "read" failed (not found)', { timeout: 20_000 });
  await expect(answer.getByTestId("markdown")).not.toContainText(/not allowed|NOT_FOUND|[{}]/);
  await expect(answer.getByTestId("tool-call").getByTestId("tool-status")).toHaveText("failed");

  // chat_safe refuses read: the denial card has the message and next step; the answer does not repeat them.
  await page.getByLabel("Mode").selectOption("chat_safe");
  await expect(page.getByTestId("mode-badge")).toContainText("chat_safe");
  await page.getByLabel("Message").fill('/tool read {"path":"README.md"}');
  await page.getByLabel("Message").press("Enter");
  const denial = page.getByTestId("tool-denied").last();
  await expect(denial).toBeVisible({ timeout: 20_000 });
  const cardMessage = (await denial.locator("p").first().textContent())!.trim();
  const denied = page.getByTestId("message-assistant").last().getByTestId("markdown").last();
  await expect(denied).toContainText("The card above");
  await expect(denied).not.toContainText(cardMessage);
  await expect(denied).not.toContainText("MODE_DENIED");
});
