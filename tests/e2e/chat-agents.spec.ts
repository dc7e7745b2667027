// Issue 32 in the browser: a member picks an agent when starting a chat (only the agents usableBy gives them), the
// header names it, its starters are clickable in the empty state, and its answer shows its persona. Screens at
// 1280×800 and 390×844, light and dark, go to test-results/screens/chat-agents-*.png.
import { expect, test } from "./fixtures";
import { savePolicy, SCREENS, shotPath, signInAs } from "./helpers";

const POLICY = {
  agents: {
    librarian: {
      name: "Librarian",
      persona: "You are a quiet librarian who recommends books about the sea.",
      tools: { deny: ["current_time"] },
      usableBy: { roles: ["member"] },
      starters: ["Who are you?", "Recommend a book about tides"],
    },
    secret: { name: "Owners' agent", usableBy: { roles: ["owner"] } },
  },
};

test("a member starts a chat as an agent from the picker; header, starters and persona show it", async ({
  browser,
  baseURL,
}) => {
  const adminContext = await browser.newContext({ baseURL });
  const adminPage = await adminContext.newPage();
  await signInAs(adminPage, "admin@example.com");
  await savePolicy(adminPage.request, POLICY, "agents e2e");
  await adminContext.close();

  for (const screen of SCREENS) {
    const context = await browser.newContext({
      baseURL,
      viewport: { width: screen.width, height: screen.height },
      colorScheme: screen.scheme,
    });
    const page = await context.newPage();
    await signInAs(page, "member@example.com");
    await page.goto("/chat");
    const picker = page.getByRole("form", { name: "Start a chat as" });
    await expect(picker.getByRole("button", { name: /Librarian/ })).toBeVisible();
    await expect(picker.getByRole("button", { name: /Default assistant/ })).toBeVisible();
    // usableBy names owners only: the member is never offered it.
    await expect(picker.getByRole("button", { name: /Owners' agent/ })).toHaveCount(0);
    await page.screenshot({ path: shotPath(`chat-agents-picker-${screen.name}.png`), fullPage: true });

    await picker.getByRole("button", { name: /Librarian/ }).click();
    await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
    await expect(page.getByTestId("chat-agent")).toHaveText("Agent: Librarian");
    const starters = page.getByRole("list", { name: "Starter prompts" });
    await expect(starters.getByRole("button")).toHaveText(["Who are you?", "Recommend a book about tides"]);
    await page.screenshot({ path: shotPath(`chat-agents-empty-${screen.name}.png`), fullPage: true });

    await starters.getByRole("button", { name: "Who are you?" }).click();
    await expect(page.getByTestId("message-user").last()).toContainText("Who are you?");
    await expect(page.getByTestId("message-assistant").last()).toContainText("I am Librarian");
    await expect(page.getByTestId("message-assistant").last()).toContainText(
      "quiet librarian who recommends books about the sea",
    );
    await page.screenshot({ path: shotPath(`chat-agents-answer-${screen.name}.png`), fullPage: true });
    await context.close();
  }
});

test("a pick forged in the page (another agent's id in the button) is refused by the server, with a plain message", async ({
  page,
}) => {
  await signInAs(page, "admin@example.com");
  await savePolicy(page.request, POLICY, "agents e2e forged pick");
  await page.context().clearCookies();
  await signInAs(page, "member@example.com");
  const count = async () => ((await (await page.request.get("/api/sessions")).json()).sessions as unknown[]).length;
  const before = await count();
  await page.goto("/chat");
  const librarian = page.getByTestId("pick-agent-librarian");
  await librarian.evaluate((button) => button.setAttribute("value", "secret"));
  await librarian.click();
  await expect(page).toHaveURL(/\/chat\?refused=secret$/);
  await expect(page.getByRole("alert").filter({ hasText: "You may not start" })).toHaveText(
    /You may not start a chat as the agent “secret”/,
  );
  expect(await count()).toBe(before);
});
