// Issue 32 in the browser, the model picker: with two models configured (offline, and an anthropic one pointed at a
// local server that speaks Anthropic's Messages stream) the new-chat page offers both, the chat's header names the
// model it runs on, and the picked model answers. The picker starts on "Default", so an agent pinned to a model starts
// without touching it (another model for it is refused); a forged pick is refused with a plain message; with one
// model configured neither the picker nor the header label appears. The model list is start-up configuration, so
// this file runs its own apps instead of the worker's. Screens at 1280×800 and 390×844, light and dark.
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startApp, type RunningApp } from "../support/app-server";
import { newSqliteUrl, prepareDatabase } from "../support/databases";
import { startFakeAnthropicServer, type FakeAnthropicServer } from "../support/fake-anthropic-server";
import { expectNoSeriousViolations, savePolicy, SCREENS, shotPath, signInAs } from "./helpers";

const API_KEY = "sk-ant-e2e-fake-key";
const CLAUDE = "anthropic:claude-fake-1";

let app: RunningApp;
let fake: FakeAnthropicServer;
let databaseUrl: string;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  databaseUrl = newSqliteUrl();
  prepareDatabase(databaseUrl);
  fake = await startFakeAnthropicServer({ apiKey: API_KEY, respond: () => ({ text: "Hello from the fake Claude." }) });
  app = await startApp({
    databaseUrl,
    env: { MODELS: `offline,${CLAUDE}`, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: fake.baseUrl },
  });
});

test.afterAll(async () => {
  await app?.stop();
  await fake?.close();
  fs.rmSync(path.dirname(databaseUrl.replace(/^file:/, "")), { recursive: true, force: true });
});

/** The new-chat form's submit: the default assistant's button when agents are offered, else the one button. */
const startButton = (page: import("@playwright/test").Page) =>
  page.getByTestId("pick-agent-default").or(page.getByRole("button", { name: "Start a new chat" }));

test("the new-chat picker offers both models; the picked one answers and the header names it", async ({ browser }) => {
  test.setTimeout(180_000);
  for (const screen of SCREENS) {
    const context = await browser.newContext({
      baseURL: app.url,
      viewport: { width: screen.width, height: screen.height },
      colorScheme: screen.scheme,
    });
    const page = await context.newPage();
    await signInAs(page, "member@example.com");
    await page.goto("/chat");
    const picker = page.getByTestId("pick-model");
    await expect(picker).toBeVisible();
    await expect(picker.locator("option")).toHaveText(["Default (offline)", "offline", CLAUDE]);
    await expect(picker).toHaveValue("");
    await picker.selectOption(CLAUDE);
    await page.screenshot({ path: shotPath(`chat-models-picker-${screen.name}.png`), fullPage: true });

    const seen = fake.requests.length;
    await startButton(page).click();
    await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
    await expect(page.getByTestId("chat-model")).toHaveText(`Model: ${CLAUDE}`);
    const box = page.getByLabel("Message");
    await box.fill("hello there");
    await box.press("Enter");
    await expect(page.getByTestId("message-assistant").last()).toContainText("Hello from the fake Claude.", {
      timeout: 20_000,
    });
    expect(fake.requests.length).toBeGreaterThan(seen);
    await page.screenshot({ path: shotPath(`chat-models-answer-${screen.name}.png`), fullPage: true });
    await context.close();
  }
});

test("without a pick the chat runs on the first model, offline, and never reaches the anthropic server", async ({
  browser,
}) => {
  const context = await browser.newContext({ baseURL: app.url });
  const page = await context.newPage();
  await signInAs(page, "member@example.com");
  await page.goto("/chat");
  const seen = fake.requests.length;
  await startButton(page).click();
  await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
  await expect(page.getByTestId("chat-model")).toHaveText("Model: offline");
  const box = page.getByLabel("Message");
  await box.fill("hello there");
  await box.press("Enter");
  await expect(page.getByTestId("message-assistant")).toHaveCount(1, { timeout: 20_000 });
  await expect(page.getByTestId("message-assistant")).not.toContainText("fake Claude");
  expect(fake.requests.length).toBe(seen);
  await context.close();
});

test("a model forged into the page is refused with a plain message and no chat is made", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: app.url });
  const page = await context.newPage();
  await signInAs(page, "member@example.com");
  const count = async () => ((await (await page.request.get("/api/sessions")).json()).sessions as unknown[]).length;
  const before = await count();
  await page.goto("/chat");
  await page
    .getByTestId("pick-model")
    .locator("option")
    .nth(1)
    .evaluate((option) => option.setAttribute("value", "openai:gpt-4o"));
  await page.getByTestId("pick-model").selectOption({ index: 1 });
  await startButton(page).click();
  await expect(page).toHaveURL(/\/chat\?model=refused$/);
  await expect(page.getByRole("alert").filter({ hasText: "That model is not available" })).toBeVisible();
  expect(await count()).toBe(before);
  await context.close();
});

test("with one model configured there is no picker and no model label", async ({ browser }) => {
  const single = await startApp({ databaseUrl, env: { MODELS: "offline" } });
  try {
    const context = await browser.newContext({ baseURL: single.url });
    const page = await context.newPage();
    await signInAs(page, "member@example.com");
    await page.goto("/chat");
    await expect(startButton(page)).toBeVisible();
    await expect(page.getByTestId("pick-model")).toHaveCount(0);
    await startButton(page).click();
    await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
    await expect(page.getByTestId("chat-title")).toBeVisible();
    await expect(page.getByTestId("chat-model")).toHaveCount(0);
    await context.close();
  } finally {
    await single.stop();
  }
});

test("with agents offered the picker sits in the agent form: a free agent runs on the picked model, a pinned one refuses another", async ({
  browser,
}) => {
  const context = await browser.newContext({ baseURL: app.url });
  const page = await context.newPage();
  await signInAs(page, "admin@example.com");
  await savePolicy(
    page.request,
    {
      agents: {
        pinned: { name: "Pinned", model: "anthropic", usableBy: { roles: ["member"] } },
        free: { name: "Free", usableBy: { roles: ["member"] } },
      },
    },
    "model picker e2e",
  );
  await page.context().clearCookies();
  await signInAs(page, "member@example.com");
  await page.goto("/chat");
  const form = page.getByRole("form", { name: "Start a chat as" });
  await form.getByTestId("pick-model").selectOption(CLAUDE);
  await form.getByTestId("pick-agent-free").click();
  await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
  await expect(page.getByTestId("chat-agent")).toHaveText("Agent: Free");
  await expect(page.getByTestId("chat-model")).toHaveText(`Model: ${CLAUDE}`);

  await page.goto("/chat");
  await form.getByTestId("pick-model").selectOption("offline");
  await form.getByTestId("pick-agent-pinned").click();
  await expect(page).toHaveURL(/\/chat\?model=refused$/);
  await expect(page.getByRole("alert").filter({ hasText: "That model is not available" })).toBeVisible();

  // Left on "Default", the pinned agent runs on its own model (a pre-selected first model would be refused).
  await page.goto("/chat");
  await expect(form.getByTestId("pick-model")).toHaveValue("");
  await expect(form.getByTestId("pick-model").locator("option").first()).toHaveText("Default (agent's or offline)");
  // The longer "Default" label fits a phone: no sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: shotPath("chat-models-agents-phone-light.png"), fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await form.getByTestId("pick-agent-pinned").click();
  await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
  await expect(page.getByTestId("chat-agent")).toHaveText("Agent: Pinned");
  await expect(page.getByTestId("chat-model")).toHaveText(`Model: ${CLAUDE}`);
  await context.close();
});

test("on a phone a long model name is cut in the header, and a tap on it shows the whole name", async ({ browser }) => {
  test.setTimeout(120_000);
  const long = "anthropic:claude-fake-with-a-rather-long-model-name-20251101-extended";
  const wide = await startApp({
    databaseUrl,
    env: { MODELS: `offline,${long}`, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: fake.baseUrl },
  });
  try {
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await browser.newContext({
        baseURL: wide.url,
        viewport: { width: 390, height: 844 },
        colorScheme,
        isMobile: true,
        hasTouch: true,
      });
      const page = await context.newPage();
      await signInAs(page, "member@example.com");
      await page.goto("/chat");
      await page.getByTestId("pick-model").selectOption(long);
      await startButton(page).click();
      await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
      const chip = page.getByTestId("chat-model");
      await expect(chip).toHaveText(`Model: ${long}`);
      // The chip shows only the start of the name (the title needs the room)...
      expect(await chip.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      const full = page.getByTestId("chat-model-full");
      await expect(full).toBeHidden();
      // ...and a tap shows all of it, wrapped inside the screen.
      await chip.tap();
      await expect(chip).toHaveAttribute("aria-expanded", "true");
      await expect(full).toBeVisible();
      await expect(full).toHaveText(`This chat runs on the model ${long}`);
      await expect(full).toBeInViewport({ ratio: 1 });
      const box = (await full.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      await expectNoSeriousViolations(page, `long model name ${colorScheme}`);
      await page.screenshot({ path: shotPath(`chat-model-long-phone-${colorScheme}.png`) });
      // A second tap folds it away.
      await chip.tap();
      await expect(full).toBeHidden();
      await context.close();
    }
  } finally {
    await wide.stop();
  }
});

test("a wrong provider key: the member reads that the provider refused the server's credentials, and the admin home page says so", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const wrong = await startApp({
    databaseUrl,
    env: { MODELS: `offline,${CLAUDE}`, ANTHROPIC_API_KEY: "sk-ant-e2e-wrong-key", ANTHROPIC_BASE_URL: fake.baseUrl },
  });
  try {
    const memberCtx = await browser.newContext({ baseURL: wrong.url });
    const member = await memberCtx.newPage();
    await signInAs(member, "member@example.com");
    await member.goto("/chat");
    await member.getByTestId("pick-model").selectOption(CLAUDE);
    await startButton(member).click();
    await expect(member).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
    await member.getByLabel("Message").fill("hello there");
    await member.getByLabel("Message").press("Enter");
    await expect(member.getByText("the model provider (anthropic) refused this server's credentials")).toBeVisible({
      timeout: 20_000,
    });
    await expect(member.getByText("sk-ant-e2e-wrong-key")).toHaveCount(0);
    await memberCtx.close();
    for (const screen of SCREENS) {
      const context = await browser.newContext({
        baseURL: wrong.url,
        viewport: { width: screen.width, height: screen.height },
        colorScheme: screen.scheme,
      });
      const admin = await context.newPage();
      await signInAs(admin, "admin@example.com");
      await admin.goto("/admin");
      const alert = admin.getByRole("alert").filter({ hasText: "A model provider refuses this server's credentials" });
      await expect(alert).toBeVisible();
      await expect(alert.getByTestId("model-refusal")).toContainText(`${CLAUDE} answered 401 to 1 turn`);
      await expectNoSeriousViolations(admin, `admin home ${screen.name}`);
      await admin.screenshot({ path: shotPath(`admin-model-refused-${screen.name}.png`), fullPage: true });
      if (screen === SCREENS[0]) {
        await alert.getByRole("link", { name: "audit log" }).click();
        await expect(admin.getByRole("cell", { name: "model.credentials_refused" }).first()).toBeVisible();
      }
      await context.close();
    }
  } finally {
    await wrong.stop();
  }
});
