// The admin's MCP servers view and the OpenClaw import preview in a real browser: a working stdio server shows as
// ready with its tools, one that exits at once shows as down with its stderr; a JSON5 config pasted into the Import
// tab is previewed with its cell changes and what was not imported, and only "Apply" puts it into the draft.
import path from "node:path";
import { expect, test } from "./fixtures";
import { signInAs } from "./helpers";

const FIXTURE = path.resolve(__dirname, "../fixtures/mcp-server.mjs");
const HOSTILE = path.resolve(__dirname, "../fixtures/hostile-mcp-server.mjs");

test.afterAll(async ({ browser }) => {
  // Later specs expect no MCP servers.
  const page = await browser.newPage();
  await signInAs(page, "admin@example.com");
  const current = await (await page.request.get("/api/policy")).json();
  await page.request.put("/api/policy", {
    data: {
      baseVersion: current.version,
      document: {
        ...current.document,
        mcpServers: [],
        system: { ...current.document.system, mcp: { enabled: false, allowedServers: [] } },
      },
    },
  });
  await page.close();
});

test("the MCP servers view shows state, tools, the stderr tail and reconnects", async ({ page }) => {
  await signInAs(page, "admin@example.com");
  const current = await (await page.request.get("/api/policy")).json();
  const document = {
    ...current.document,
    system: { ...current.document.system, mcp: { enabled: true, allowedServers: ["fx", "crashy"] } },
    mcpServers: [
      {
        id: "fx",
        transport: { type: "stdio", command: process.execPath, args: [FIXTURE] },
        allowedModes: ["coding"],
        timeoutMs: 10_000,
      },
      {
        id: "crashy",
        transport: {
          type: "stdio",
          command: process.execPath,
          args: ["-e", 'console.error("boom: missing API key"); process.exit(1)'],
        },
        allowedModes: ["coding"],
      },
    ],
  };
  expect((await page.request.put("/api/policy", { data: { baseVersion: current.version, document } })).status()).toBe(
    200,
  );
  await page.goto("/admin/mcp");
  const fx = page.getByTestId("mcp-server-fx");
  await expect(fx.getByTestId("mcp-state")).toHaveText("ready");
  await expect(fx).toContainText("mcp__fx__echo");
  const crashy = page.getByTestId("mcp-server-crashy");
  await expect(crashy.getByTestId("mcp-state")).toHaveText("down");
  await expect(crashy).toContainText("boom: missing API key");
  await crashy.getByText(/^stderr/).click();
  await expect(crashy.getByTestId("mcp-stderr")).toContainText("boom: missing API key");
  await crashy.getByRole("button", { name: "Reconnect and refresh tools" }).click();
  await expect(crashy.getByTestId("mcp-state")).toHaveText("down");
  await page.screenshot({ path: "playwright-report/screens/mcp-servers.png", fullPage: true });
});

// Issue 36: a server update that re-lists a destructive tool as read-only is held; the view shows the pinned and
// the proposed definition side by side, and the admin's accept pins exactly that one.
test("a tool definition the server changed is held, shown as a diff and accepted by the admin", async ({ page }) => {
  await signInAs(page, "admin@example.com");
  const save = async (env: Record<string, string>) => {
    const current = await (await page.request.get("/api/policy")).json();
    const document = {
      ...current.document,
      system: { ...current.document.system, mcp: { enabled: true, allowedServers: ["rug"] } },
      mcpServers: [
        {
          id: "rug",
          transport: { type: "stdio", command: process.execPath, args: [HOSTILE], env },
          allowedModes: ["coding"],
          timeoutMs: 10_000,
          requireApprovalForDestructive: true,
        },
      ],
    };
    expect((await page.request.put("/api/policy", { data: { baseVersion: current.version, document } })).status()).toBe(
      200,
    );
  };
  await save({ HOSTILE_MODE: "default" });
  await page.goto("/admin/mcp");
  const rug = page.getByTestId("mcp-server-rug");
  await expect(rug.getByTestId("mcp-state")).toHaveText("ready");
  await expect(rug).toContainText("mcp__rug__wipe · asks for approval");
  // The update gone bad: a new process lists wipe as read-only with a soothing description.
  await save({ HOSTILE_MODE: "default", HOSTILE_WIPE_SAFE: "1" });
  const change = rug.getByTestId("mcp-tool-change-wipe");
  await expect(change).toBeVisible({ timeout: 15_000 });
  await expect(change).toContainText("Deletes the target.");
  await expect(change).toContainText("Reads nothing. Perfectly safe.");
  await expect(rug).toContainText("mcp__rug__wipe · asks for approval");
  await page.screenshot({ path: "playwright-report/screens/mcp-held-change.png", fullPage: true });
  await change.getByRole("button", { name: "Accept this definition" }).click();
  await expect(rug.getByTestId("mcp-tool-changes")).toHaveCount(0);
  await expect(rug).not.toContainText("mcp__rug__wipe · asks for approval");
});

// Issue 14: a plugin's image is shown in the chat as an image (allowed by the page's CSP, actually decoded), its
// resource link opens through the server, and neither the card nor the model's answer prints the base64.
test("a plugin tool's image renders inline in the chat and its resource link goes through the server", async ({
  page,
}) => {
  await signInAs(page, "admin@example.com");
  const current = await (await page.request.get("/api/policy")).json();
  const document = {
    ...current.document,
    system: { ...current.document.system, mcp: { enabled: true, allowedServers: ["fx"] } },
    mcpServers: [
      {
        id: "fx",
        transport: { type: "stdio", command: process.execPath, args: [FIXTURE] },
        allowedModes: ["coding"],
        timeoutMs: 10_000,
      },
    ],
  };
  expect((await page.request.put("/api/policy", { data: { baseVersion: current.version, document } })).status()).toBe(
    200,
  );
  await page.goto("/admin/mcp");
  await expect(page.getByTestId("mcp-server-fx")).toContainText("mcp__fx__picture");

  await page.goto("/chat");
  await page
    .getByRole("button", { name: /new chat/i })
    .first()
    .click();
  await expect(page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
  await page.getByLabel("Mode").selectOption("coding");
  await expect(page.getByLabel("Mode")).toHaveValue("coding");
  // The stored transcript replaces the streamed one when the turn ends (new message ids, every row remounted). It is
  // held back here until the reader has opened the card, so the card is opened on the streamed copy every time: the
  // order a reader on a slow connection gets, and the one that once folded the card shut (CI, one run in several).
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const transcript = /\/api\/sessions\/[A-Za-z0-9_-]+$/;
  await page.route(
    (url) => transcript.test(url.pathname),
    async (route) => {
      if (route.request().method() === "GET") await held;
      await route.fallback();
    },
  );
  await page.getByLabel("Message").fill("/tool mcp__fx__picture {}");
  await page.getByLabel("Message").press("Enter");
  const card = page.getByTestId("tool-call").filter({ hasText: "mcp__fx__picture" }).last();
  await expect(card).toBeVisible({ timeout: 20_000 });
  await expect(card.locator("summary")).toContainText("done", { timeout: 20_000 });
  await card.locator("summary").click();
  const image = card.getByRole("img", { name: "image returned by the tool" });
  await expect(image).toBeVisible();
  release();
  // Stored: the question can be edited now, and the card the reader opened is still open.
  await expect(page.getByRole("button", { name: "Edit message" }).last()).toBeEnabled({ timeout: 20_000 });
  await expect(card).toHaveAttribute("open", "");
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(8);
  const link = card.getByRole("link", { name: "readme.txt" });
  await expect(link).toHaveAttribute(
    "href",
    /^\/api\/mcp\/resource\?session=.+&server=fx&uri=fixture%3A%2F%2Fnotes%2Freadme.txt$/,
  );
  await expect(page.getByTestId("message-assistant").last()).not.toContainText("iVBORw0KGgo");
  await expect(card).not.toContainText("iVBORw0KGgo");
  await page.screenshot({ path: "playwright-report/screens/chat-mcp-image.png", fullPage: true });
});

test("an OpenClaw JSON5 import is previewed with its cell changes before it reaches the draft", async ({ page }) => {
  await signInAs(page, "admin@example.com");
  await page.goto("/admin/policy");
  await expect(page.getByRole("table", { name: "Effective tool policy per mode" })).toBeVisible();
  await page.getByRole("tab", { name: /Import/ }).click();
  await page.getByLabel("Text to import").fill(`// a family bot that may only read
    { tools: { deny: ['group:media'], elevated: { enabled: true } },
      agents: { entries: { family: { tools: { allow: ['read', 'message'], deny: ['exec', 'write'], }, }, }, }, }`);
  await page.getByRole("button", { name: "Preview the import" }).click();
  const preview = page.getByTestId("import-preview");
  // The matrix's context (a person, lib/admin/matrix-contexts.ts) with the agent the import names.
  await expect(preview).toContainText("with agent family");
  await expect(page.getByTestId("import-flips")).toContainText(/@\S+ with agent family: \d+ cells change/);
  await expect(page.getByTestId("import-unmapped")).toContainText("tools.elevated");
  await expect(page.getByTestId("import-names")).toContainText('"group:media" → image');
  await page.getByRole("button", { name: "Apply to the draft" }).click();
  await expect(preview).toBeHidden();
  await page.getByRole("tab", { name: /JSON/ }).click();
  await expect(page.getByLabel("Policy document (JSON)")).toContainText('"family"');
});
