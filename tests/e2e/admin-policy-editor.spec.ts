// Issue 15 in the browser: the unsaved-changes guard, the CodeMirror JSON editor under the strict CSP, deny lists
// naming nothing, grants by e-mail, exec cells that ask, reload-and-reapply after a conflict, and version diffs.
import { mkdirSync } from "node:fs";
import { type Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { savePolicy, signInAs, SHOTS_DIR } from "./helpers";

const SHOTS = SHOTS_DIR;
const cell = (page: Page, tool: string, mode: string) =>
  page.getByRole("button", { name: new RegExp(`^${tool} in ${mode}:`) });
const editor = (page: Page) => page.getByLabel("Policy document (JSON)");

/** Console errors and CSP violations, to assert that nothing the editor adds is blocked. */
function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  return problems;
}

/**
 * Replaces the editor's text the way a person would: select all, delete, type. (Playwright's fill() replaces a
 * contenteditable selection with execCommand, and Chromium may then wrap the text in a <span style=…> to keep the
 * old look; the CSP rightly blocks that style attribute, which would be the test's violation, not the editor's.)
 */
async function replaceText(page: Page, text: string) {
  await editor(page).click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Backspace");
  await page.keyboard.insertText(text);
  await expect(editor(page)).toContainText(text.split("\n")[0]!);
}

async function openJson(page: Page) {
  await page.goto("/admin/policy");
  await page.getByRole("tab", { name: "JSON" }).click();
  await expect(editor(page)).toContainText('"tools"');
}

/** Opens the JSON tab and types a draft. The click first: browsers show the beforeunload prompt only on a page the user has interacted with. */
async function startDraft(page: Page, text: string) {
  await openJson(page);
  await editor(page).click();
  await editor(page).fill(text);
  await expect(page.getByText("Unsaved draft")).toBeVisible();
}

test.describe("policy editor (issue 15)", () => {
  test.afterEach(async ({ page }) => {
    await savePolicy(page.request, {}, "e2e cleanup");
  });

  test("a draft survives neither a reload nor an in-app link without a question", async ({ page }) => {
    await signInAs(page, "admin@example.com");
    await startDraft(page, '{ "askRules": ["write"] }');

    // Reload: the browser's beforeunload prompt; dismissing it keeps the page and the draft.
    const prompts: string[] = [];
    page.once("dialog", (dialog) => {
      prompts.push(dialog.type());
      void dialog.dismiss();
    });
    await page.reload({ timeout: 3_000 }).catch(() => undefined);
    expect(prompts).toEqual(["beforeunload"]);
    await expect(editor(page)).toHaveText('{ "askRules": ["write"] }');

    // An in-app link (the app shell's nav): asked first; cancelling stays here with the draft.
    page.once("dialog", (dialog) => {
      prompts.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.getByRole("link", { name: "Chat", exact: true }).click();
    await expect.poll(() => prompts.length).toBe(2);
    expect(prompts[1]).toMatch(/^confirm: .*unsaved policy draft/);
    await expect(page).toHaveURL(/\/admin\/policy$/);
    await expect(editor(page)).toHaveText('{ "askRules": ["write"] }');

    // The admin section's own links too; accepting leaves.
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Audit" }).click();
    await expect(page).toHaveURL(/\/admin\/audit$/);

    // Without a draft, nothing asks.
    await page.goto("/admin/policy");
    page.once("dialog", (dialog) => {
      prompts.push("unexpected");
      void dialog.dismiss();
    });
    await page.getByRole("link", { name: "Chat", exact: true }).click();
    await expect(page).toHaveURL(/\/chat/);
    expect(prompts).not.toContain("unexpected");
  });

  test("the browser's Back button asks too: staying keeps the draft, leaving goes back; without a draft Back is one press", async ({
    page,
  }) => {
    await signInAs(page, "admin@example.com");
    await page.goto("/grants");
    await startDraft(page, '{ "askRules": ["write"] }');

    const prompts: string[] = [];
    page.once("dialog", (dialog) => {
      prompts.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goBack();
    await expect.poll(() => prompts.length).toBe(1);
    expect(prompts[0]).toMatch(/^confirm: .*unsaved policy draft/);
    await expect(page).toHaveURL(/\/admin\/policy$/);
    await expect(editor(page)).toHaveText('{ "askRules": ["write"] }');

    // Asked again on the next Back (the guard put its entry back); accepting leaves for the page before.
    page.once("dialog", (dialog) => {
      prompts.push(dialog.type());
      void dialog.accept();
    });
    await page.goBack();
    await expect(page).toHaveURL(/\/grants$/);
    expect(prompts).toEqual([prompts[0], "confirm"]);

    // A draft that is discarded leaves no extra entry behind: one Back returns to the page before, unasked.
    await startDraft(page, '{ "askRules": ["read"] }');
    await page.getByRole("button", { name: "Discard draft" }).click();
    await expect(page.getByText("Unsaved draft")).toHaveCount(0);
    page.once("dialog", (dialog) => {
      prompts.push("unexpected");
      void dialog.dismiss();
    });
    await page.goBack();
    await expect(page).toHaveURL(/\/grants$/);
    expect(prompts).not.toContain("unexpected");
  });

  test("the JSON editor has line numbers and marks a problem on its line; it works under the CSP and Tab/Escape leave it", async ({
    page,
  }) => {
    const problems = watchConsole(page);
    await signInAs(page, "admin@example.com");
    await openJson(page);
    // CodeMirror's injected styles apply (they would be blocked without the nonce): the editor is a flex box.
    await expect(page.locator(".cm-editor")).toHaveCSS("display", "flex");
    await expect(page.locator(".cm-lineNumbers .cm-gutterElement", { hasText: /^1$/ })).toBeVisible();

    // A syntax error: the marker sits on line 3, the message names line and column.
    await replaceText(page, '{\n  "tools": {\n    "deny": ["exec",]\n  }\n}');
    // (The engine's message quotes the text, newlines and all.)
    await expect(page.getByText(/Not valid JSON: [\s\S]*\(line 3, column \d+\)/)).toBeVisible();
    await expect(page.locator(".cm-lintRange-error")).toHaveCount(1);
    await expect(page.locator(".cm-line", { has: page.locator(".cm-lintRange-error") })).toContainText('"deny"');

    // A schema problem by path: marked on the line of "deny", not only listed.
    await replaceText(page, '{\n  "askRules": [],\n  "tools": {\n    "deny": "exec"\n  }\n}');
    await expect(page.getByTestId("draft-issues")).toContainText("tools.deny");
    await expect(page.locator(".cm-line", { has: page.locator(".cm-lintRange-error") })).toContainText(
      '"deny": "exec"',
    );
    await expect(page.locator(".cm-gutter-lint .cm-lint-marker-error")).toHaveCount(1);

    // Keyboard: Escape jumps to the problem list, Tab from the editor moves on instead of indenting.
    await editor(page).click();
    await page.keyboard.press("Escape");
    await expect(page.locator("#policy-json-problems")).toBeFocused();
    await editor(page).click();
    await page.keyboard.press("Tab");
    await expect(editor(page)).not.toBeFocused();
    await expect(editor(page)).toContainText('"deny": "exec"');

    expect(problems.filter((p) => /Content Security Policy|Refused to/i.test(p))).toEqual([]);
  });

  test("a typo in a deny list blocks the save until 'save anyway', which is audited; allow lists only warn", async ({
    page,
  }) => {
    await signInAs(page, "admin@example.com");
    await openJson(page);
    await editor(page).fill('{ "tools": { "deny": ["exce"] } }');
    await expect(page.getByTestId("draft-deny-errors")).toContainText('"exce"');
    await expect(page.locator(".cm-lintRange-error")).toContainText('"exce"');
    const saveButton = page.getByRole("button", { name: "Save as new version" });
    await expect(saveButton).toBeDisabled();
    await page.getByLabel(/Save anyway/).check();
    await page.getByLabel("Comment").fill("typo kept on purpose");
    await saveButton.click();
    await expect(page.getByText(/Saved as version \d+/)).toBeVisible();
    const audit = await (await page.request.get("/api/audit?action=policy.saved&limit=1")).json();
    expect(audit.entries[0].details.unknownDenyOverride).toEqual([{ path: "tools.deny", entries: ["exce"] }]);

    await editor(page).fill('{ "tools": { "allow": ["raed", "read", "current_time"] } }');
    await expect(page.getByTestId("draft-warnings")).toContainText("raed");
    await expect(page.getByTestId("draft-deny-errors")).toHaveCount(0);
    await expect(saveButton).toBeEnabled();
  });

  test("per-user grants are shown and edited by e-mail; an unknown e-mail is refused by name", async ({ page }) => {
    await signInAs(page, "admin@example.com");
    await savePolicy(
      page.request,
      { modeGrants: { users: { "member@example.com": ["chat_safe", "coding"] } } },
      "grant by e-mail",
    );
    await openJson(page);
    // CodeMirror renders the lines in view: go to the end, where modeGrants is.
    await editor(page).click();
    await page.keyboard.press("Control+End");
    await expect(editor(page)).toContainText('"member@example.com"');
    // Replaced through the editor's own select-all: fill() replaces only the lines CodeMirror has rendered, and
    // after Control+End that is the end of the document on a slow run (the rest stayed, as invalid JSON).
    await replaceText(
      page,
      '{ "modeGrants": { "users": { "owner@example.com": ["chat_safe", "coding"], "nobody@example.com": ["coding"] } } }',
    );
    await page.getByRole("button", { name: "Save as new version" }).click();
    await expect(page.getByTestId("save-error")).toContainText('"nobody@example.com"');
    await expect(page.locator(".cm-lintRange-error")).toContainText('"nobody@example.com"');
    await replaceText(page, '{ "modeGrants": { "users": { "owner@example.com": ["chat_safe", "coding"] } } }');
    await page.getByRole("button", { name: "Save as new version" }).click();
    await expect(page.getByText(/Saved as version \d+/)).toBeVisible();
    expect((await (await page.request.get("/api/policy")).json()).document.modeGrants.users).toEqual({
      "owner@example.com": ["chat_safe", "coding"],
    });
  });

  test("exec shows as 'needs approval' with the reason when commands wait for an owner", async ({ page }) => {
    await signInAs(page, "admin@example.com");
    await page.goto("/admin/policy");
    await page.getByRole("combobox", { name: "Role", exact: true }).selectOption("admin");
    const exec = cell(page, "exec", "coding");
    await expect(exec).toHaveAttribute("data-status", "ask");
    await expect(exec).toContainText("some commands");
    await exec.click();
    const panel = page.getByRole("complementary", { name: "Decision details" });
    await expect(panel.getByTestId("cell-reason")).toContainText("wait for an owner's approval");
    await expect(panel.getByTestId("cell-layer")).toContainText("exec settings");

    await savePolicy(page.request, { exec: { security: "full", ask: "off" } }, "exec runs everything");
    await page.reload();
    await page.getByRole("combobox", { name: "Role", exact: true }).selectOption("admin");
    await expect(cell(page, "exec", "coding")).toHaveAttribute("data-status", "allowed");
    await savePolicy(page.request, { exec: { security: "full", ask: "always" } }, "exec always asks");
    await page.reload();
    await page.getByRole("combobox", { name: "Role", exact: true }).selectOption("admin");
    await expect(cell(page, "exec", "coding")).toContainText("every command");
  });

  test("after a conflict, 'reload and reapply' puts the draft's edits on the new version and lists what both changed", async ({
    page,
  }) => {
    await signInAs(page, "admin@example.com");
    await savePolicy(page.request, { tools: { deny: ["memory_get"] } }, "base");
    await openJson(page);
    await editor(page).fill(
      JSON.stringify({
        ...(await (await page.request.get("/api/policy")).json()).document,
        askRules: ["write"],
        tools: { deny: ["read"] },
      }),
    );
    // Another admin saves in the meantime: one path the draft also changed, one it did not.
    const other = await savePolicy(
      page.request,
      { tools: { deny: ["memory_get", "exec"] }, teams: { ops: { deny: ["write"] } } },
      "someone else",
    );
    await page.getByRole("button", { name: "Save as new version" }).click();
    await expect(page.getByTestId("save-error")).toContainText("Conflict");
    await page.getByRole("button", { name: "Reload and reapply my edits" }).click();
    const result = page.getByTestId("reapply-result");
    await expect(result).toContainText(`onto version ${other}`);
    await expect(page.getByTestId("reapply-conflicts")).toContainText(
      'tools.deny: theirs ["memory_get","exec"] → yours ["read"]',
    );
    await expect(page.getByText(`based on version ${other}`)).toBeVisible();
    await expect(editor(page)).toContainText('"ops"');
    await page.getByRole("button", { name: "Save as new version" }).click();
    await expect(page.getByText(/Saved as version \d+/)).toBeVisible();
    const saved = (await (await page.request.get("/api/policy")).json()).document;
    expect(saved).toMatchObject({
      askRules: ["write"],
      tools: { deny: ["read"] },
      teams: { ops: { deny: ["write"] } },
    });
  });

  test("two versions can be diffed, and a rollback shows what it would change before it is confirmed", async ({
    page,
  }) => {
    await signInAs(page, "admin@example.com");
    const a = await savePolicy(page.request, { tools: { deny: ["memory_get"] } }, "version a");
    const b = await savePolicy(
      page.request,
      { tools: { deny: ["memory_get", "exec"] }, askRules: ["write"] },
      "version b",
    );
    await page.goto("/admin/policy");
    await page.getByRole("tab", { name: "History" }).click();
    await page.getByLabel("Compare version", { exact: true }).selectOption(String(a));
    await page.getByLabel("with version", { exact: true }).selectOption(String(b));
    await page.getByRole("button", { name: "Show the difference" }).click();
    await expect(page.getByTestId("version-diff-paths")).toHaveText("askRules, tools.deny");
    await expect(
      page.getByTestId("version-diff-lines").locator('[data-kind="added"]', { hasText: '"exec"' }),
    ).toHaveCount(1);

    await page.getByRole("button", { name: `Roll back to ${a}…`, exact: true }).click();
    const preview = page.getByRole("region", { name: new RegExp(`rolling back to version ${a}`) });
    await expect(preview.getByTestId("version-diff-paths")).toHaveText("askRules, tools.deny");
    await expect(
      preview.getByTestId("version-diff-lines").locator('[data-kind="removed"]', { hasText: '"exec"' }),
    ).toHaveCount(1);
    await page.getByRole("button", { name: `Restore version ${a}`, exact: true }).click();
    await expect(page.getByText(/Restored as version \d+/)).toBeVisible();
    expect((await (await page.request.get("/api/policy")).json()).document.tools.deny).toEqual(["memory_get"]);
  });
});

test.describe("policy editor screenshots", () => {
  test.afterEach(async ({ page }) => {
    await savePolicy(page.request, {}, "e2e cleanup");
  });
  for (const scheme of ["light", "dark"] as const) {
    for (const size of [
      { name: "desktop", width: 1280, height: 800 },
      { name: "phone", width: 390, height: 844 },
    ]) {
      test(`JSON editor with markers, exec cell and history diff at ${size.name} width, ${scheme}`, async ({
        page,
      }) => {
        mkdirSync(SHOTS, { recursive: true });
        const problems = watchConsole(page);
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width: size.width, height: size.height });
        await signInAs(page, "admin@example.com");
        await savePolicy(page.request, { tools: { deny: ["memory_get"] } }, "shot a");
        await savePolicy(
          page.request,
          { tools: { deny: ["memory_get", "sessions_list"] }, askRules: ["write"] },
          "shot b",
        );
        await openJson(page);
        await replaceText(
          page,
          '{\n  "tools": {\n    "deny": ["exce", "read"]\n  },\n  "modeOverrides": { "read": ["chat_safe", "coding"] }\n}',
        );
        await expect(page.locator(".cm-lintRange-error")).toHaveCount(2);
        await page.getByTestId("draft-deny-errors").scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/json-${size.name}-${scheme}.png`, fullPage: false });
        await page.getByRole("button", { name: "Discard draft" }).click();
        await page.getByRole("combobox", { name: "Role", exact: true }).selectOption("admin");
        await cell(page, "exec", "coding").click();
        await expect(page.getByTestId("cell-reason")).toContainText("owner");
        await page.screenshot({
          path: `${SHOTS}/matrix-${size.name}-${scheme}.png`,
          fullPage: size.name === "desktop",
        });
        await page.getByRole("tab", { name: "History" }).click();
        await page.getByRole("button", { name: "Show the difference" }).click();
        await expect(page.getByTestId("version-diff")).toBeVisible();
        await page.getByTestId("version-diff").scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/history-${size.name}-${scheme}.png`, fullPage: false });
        expect(problems.filter((p) => /Content Security Policy|Refused to/i.test(p))).toEqual([]);
      });
    }
  }
});
