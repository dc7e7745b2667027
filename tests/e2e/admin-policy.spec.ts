// The policy editor in a browser: the matrix and its side panel, a draft marking flipped cells, a stale save.
import { type Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { savePolicy, signInAs } from "./helpers";

const cell = (page: Page, tool: string, mode: string) =>
  page.getByRole("button", { name: new RegExp(`^${tool} in ${mode}:`) });

test.describe("admin policy editor", () => {
  test.afterEach(async ({ page }) => {
    await savePolicy(page.request, {}, "e2e cleanup");
  });

  test("the matrix shows a denied cell, and the side panel names its layer, rule and chain", async ({ page }) => {
    await signInAs(page, "admin@example.com");
    await savePolicy(page.request, { tools: { deny: ["current_time"] } }, "deny current_time");
    await page.goto("/admin/policy");
    const denied = cell(page, "current_time", "chat_safe");
    await expect(denied).toHaveAttribute("data-status", "denied");
    await expect(denied).toContainText("denied");
    await expect(denied).toContainText("global");
    await denied.click();
    const panel = page.getByRole("complementary", { name: "Decision details" });
    await expect(panel.getByTestId("cell-layer")).toContainText("global");
    await expect(panel).toContainText("current_time");
    await expect(panel.getByRole("list")).toContainText("removed");
    // An allowed cell for contrast.
    await cell(page, "memory_search", "chat_safe").click();
    await expect(panel.getByTestId("cell-layer")).toContainText("none (allowed)");
  });

  test("a draft change marks exactly the cells that flip", async ({ page }) => {
    await signInAs(page, "admin@example.com");
    await page.goto("/admin/policy");
    await expect(cell(page, "memory_search", "chat_safe")).toHaveAttribute("data-status", "allowed");
    const deny = page.getByLabel("Deny (beats allow)");
    await deny.fill("memory_search");
    await deny.press("Enter");
    await expect(cell(page, "memory_search", "chat_safe")).toHaveAttribute("data-flipped", "true");
    await expect(cell(page, "memory_search", "chat_safe")).toHaveAttribute("data-status", "denied");
    await expect(page.getByText(/Showing the draft: \d+ cells? change/)).toBeVisible();
    await expect(cell(page, "current_time", "chat_safe")).not.toHaveAttribute("data-flipped", "true");
    // memory_search in both columns (a member's coding column is evaluated as chat_safe), nothing else.
    await expect(page.locator('[data-flipped="true"]')).toHaveCount(2);
  });

  test("an unknown tool name is flagged as you type in the JSON editor", async ({ page }) => {
    await signInAs(page, "admin@example.com");
    await page.goto("/admin/policy");
    await page.getByRole("tab", { name: "JSON" }).click();
    await page.getByLabel("Policy document (JSON)").fill('{ "tools": { "allow": ["curent_time", "read"] } }');
    await expect(page.getByTestId("draft-warnings").first()).toContainText("curent_time");
    await page.getByLabel("Policy document (JSON)").fill('{ "tools": { "deny": "exec" } }');
    await expect(page.getByTestId("draft-issues").first()).toContainText("tools.deny");
    await expect(page.getByRole("button", { name: "Save as new version" })).toBeDisabled();
  });

  test("a stale save shows the conflict message and keeps the draft", async ({ page }) => {
    await signInAs(page, "admin@example.com");
    await page.goto("/admin/policy");
    await page.getByRole("tab", { name: "JSON" }).click();
    const editor = page.getByLabel("Policy document (JSON)");
    await expect(editor).toContainText('"tools"');
    await editor.fill('{ "askRules": ["write"] }');
    // Another admin saves in the meantime.
    await savePolicy(page.request, { tools: { deny: ["exec"] } }, "someone else");
    await page.getByRole("button", { name: "Save as new version" }).click();
    const error = page.getByTestId("save-error");
    await expect(error).toContainText("Conflict");
    await expect(error).toContainText("is newer than your base version");
    await expect(editor).toHaveText('{ "askRules": ["write"] }');
  });
});
