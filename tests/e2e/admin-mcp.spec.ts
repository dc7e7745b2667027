// The admin's MCP servers view and the OpenClaw import preview in a real browser: a working stdio server shows as
// ready with its tools, one that exits at once shows as down with its stderr; a JSON5 config pasted into the Import
// tab is previewed with its cell changes and what was not imported, and only "Apply" puts it into the draft.
import path from "node:path";
import { expect, test } from "@playwright/test";
import { signInAs } from "./helpers";

const FIXTURE = path.resolve(__dirname, "../fixtures/mcp-server.mjs");

test.afterAll(async ({ browser }) => {
  // Later specs expect no MCP servers.
  const page = await browser.newPage();
  await signInAs(page, "admin@example.com");
  const current = await (await page.request.get("/api/policy")).json();
  await page.request.put("/api/policy", { data: { baseVersion: current.version, document: { ...current.document, mcpServers: [], system: { ...current.document.system, mcp: { enabled: false, allowedServers: [] } } } } });
  await page.close();
});

test("the MCP servers view shows state, tools, the stderr tail and reconnects", async ({ page }) => {
  await signInAs(page, "admin@example.com");
  const current = await (await page.request.get("/api/policy")).json();
  const document = {
    ...current.document,
    system: { ...current.document.system, mcp: { enabled: true, allowedServers: ["fx", "crashy"] } },
    mcpServers: [
      { id: "fx", transport: { type: "stdio", command: process.execPath, args: [FIXTURE] }, allowedModes: ["coding"], timeoutMs: 10_000 },
      { id: "crashy", transport: { type: "stdio", command: process.execPath, args: ["-e", 'console.error("boom: missing API key"); process.exit(1)'] }, allowedModes: ["coding"] },
    ],
  };
  expect((await page.request.put("/api/policy", { data: { baseVersion: current.version, document } })).status()).toBe(200);
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
  await expect(preview).toContainText("member with agent family");
  await expect(page.getByTestId("import-flips")).toContainText(/member with agent family: \d+ cells change/);
  await expect(page.getByTestId("import-unmapped")).toContainText("tools.elevated");
  await expect(page.getByTestId("import-names")).toContainText('"group:media" → image');
  await page.getByRole("button", { name: "Apply to the draft" }).click();
  await expect(preview).toBeHidden();
  await page.getByRole("tab", { name: /JSON/ }).click();
  await expect(page.locator("textarea").first()).toHaveValue(/"family"/);
});
