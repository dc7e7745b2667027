// Issue 33: the policy parts that were raw JSON only, as forms (Sandbox and exec, ask and approval routing, MCP
// servers, subagents). Each test edits with the form, sees the validation as it types, sees the draft's effect on
// the matrix before saving, saves, reloads and finds the value stored. Then screenshots and axe, at 1280×800 and
// 390×844, light and dark.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { savePolicy, SCREENS, shotPath, signInAs } from "./helpers";

/** The whole draft, read from the JSON editor's state (CodeMirror renders only the lines in view). */
async function draftJson(page: Page): Promise<Record<string, unknown>> {
  await page.getByRole("tab", { name: "JSON" }).click();
  const text = await page.evaluate(() => {
    type Tiled = { cmTile?: { root?: { view?: { state: { doc: { toString(): string } } } } } };
    const content = document.querySelector('[aria-label="Policy document (JSON)"]') as (Element & Tiled) | null;
    return content?.cmTile?.root?.view?.state.doc.toString() ?? "";
  });
  await page.getByRole("tab", { name: "Sandbox, approvals, MCP" }).click();
  return JSON.parse(text) as Record<string, unknown>;
}

async function openForms(page: Page, part: string) {
  await page.goto("/admin/policy");
  await expect(page.getByRole("tablist", { name: "Policy editor" })).toBeVisible();
  // An owner has both modes granted, so a change in coding shows in the matrix.
  await page.getByRole("combobox", { name: /^Role/ }).selectOption("owner");
  await page.getByRole("tab", { name: "Sandbox, approvals, MCP" }).click();
  await page.getByRole("tab", { name: part }).click();
}

async function save(page: Page, comment: string) {
  await page
    .getByLabel(/comment/i)
    .first()
    .fill(comment);
  await page.getByRole("button", { name: "Save as new version" }).click();
  await expect(page.getByText("No changes")).toBeVisible();
}

const stored = async (page: Page) => (await (await page.request.get("/api/policy")).json()).document;

test.describe("policy forms (issue 33)", () => {
  test.beforeEach(async ({ page }) => {
    await signInAs(page, "admin@example.com");
  });
  test.afterEach(async ({ page }) => {
    await savePolicy(page.request, {}, "e2e cleanup");
  });

  test("sandbox and exec: mode, limits in seconds and MiB, a domain rule; the exec cell flips before saving", async ({
    page,
  }) => {
    await openForms(page, "Sandbox and exec");
    const effect = page.getByTestId("draft-effect");
    await expect(effect).toHaveText(/No unsaved changes/);

    await page.getByRole("radio", { name: /No commands/ }).check();
    await expect(effect).toContainText("1 cell changes");
    await expect(effect.getByRole("listitem")).toContainText([/exec in coding: needs approval → ✕?\s*denied/]);
    await expect(page.getByRole("button", { name: /^exec in coding:/ })).toContainText("changed");

    const timeout = page.getByLabel("Time one command may run (seconds)");
    await expect(timeout).toHaveValue("30");
    await timeout.fill("half a minute");
    await expect(page.getByRole("alert").filter({ hasText: "a number of seconds" })).toBeVisible();
    await expect(timeout).toHaveAttribute("aria-invalid", "true");
    await timeout.fill("45");
    await expect(timeout).not.toHaveAttribute("aria-invalid", "true");

    const memory = page.getByLabel("Memory per member (all commands)");
    await expect(memory).toHaveValue("2 GiB");
    await memory.fill("8 MiB");
    await expect(page.getByRole("alert").filter({ hasText: "at least 16 MiB" })).toBeVisible();
    await memory.fill("1.5 GiB");

    const row = page.getByTestId("network-rule-new");
    const add = row.getByRole("button", { name: "Add domain" });
    await row.getByLabel(/^Domain/).fill("not a domain!");
    await expect(row).toContainText("a domain name such as registry.npmjs.org");
    await expect(add).toBeDisabled();
    await row.getByLabel(/^Domain/).fill("registry.npmjs.org");
    await row.getByLabel("Ports", { exact: true }).fill("443, https");
    await expect(row).toContainText("✕ a number");
    await row.getByLabel("Ports", { exact: true }).fill("443");
    await add.click();
    await expect(page.getByTestId("network-rule")).toHaveCount(1);
    await expect(page.getByTestId("network-rule").getByLabel(/^Domain/)).toHaveValue("registry.npmjs.org");

    const draft = (await draftJson(page)) as { exec: Record<string, unknown> & { network: { allow: unknown[] } } };
    expect(draft.exec).toMatchObject({ security: "deny", timeoutMs: 45_000, memberMemoryBytes: 1.5 * 1024 ** 3 });
    expect(draft.exec.network.allow).toEqual([
      { domain: "registry.npmjs.org", methods: ["GET", "HEAD"], ports: [443] },
    ]);

    await save(page, "exec form");
    await page.reload();
    await page.getByRole("tab", { name: "Sandbox, approvals, MCP" }).click();
    await expect(page.getByRole("radio", { name: /No commands/ })).toBeChecked();
    await expect(page.getByLabel("Time one command may run (seconds)")).toHaveValue("45");
    await expect(page.getByLabel("Memory per member (all commands)")).toHaveValue("1536 MiB");
    await expect(page.getByTestId("network-rule").getByLabel(/^Domain/)).toHaveValue("registry.npmjs.org");
    expect((await stored(page)).exec).toMatchObject({ security: "deny", timeoutMs: 45_000 });
  });

  test("ask rules and routing: a critical rule needs two approvers; the ask rule shows in the matrix", async ({
    page,
  }) => {
    await openForms(page, "Ask and approval routing");
    const effect = page.getByTestId("draft-effect");
    await page.getByLabel("Ask before every call of").fill("current_time, ");
    await expect(effect).toContainText("current_time in chat_safe");
    await expect(effect).toContainText("needs approval");

    const rule = page.getByTestId("routing-rule-new");
    const add = rule.getByRole("button", { name: "Add rule" });
    await rule.getByLabel("Name of the rule").fill("finance");
    await rule.getByLabel("Approvers (e-mail addresses)").fill("owner@example.com");
    await rule.getByRole("checkbox", { name: /Critical/ }).check();
    await expect(rule).toContainText("a critical rule needs two different approvers");
    await expect(add).toBeDisabled();
    await rule.getByLabel("Approvers (e-mail addresses)").fill("owner@example.com, Second@Example.com");
    await rule.getByLabel("Request expires after (minutes)").fill("soon");
    await expect(rule).toContainText("✕ a number");
    await rule.getByLabel("Request expires after (minutes)").fill("90");
    await rule.getByRole("checkbox", { name: "uses the network" }).check();
    await expect(add).toBeEnabled();
    await add.click();
    await expect(page.getByTestId("routing-rule")).toHaveCount(1);
    await expect(page.getByTestId("routing-rule").getByLabel("Name of the rule")).toHaveValue("finance");

    const draft = (await draftJson(page)) as { askRules: string[]; routing: { rules: unknown[] } };
    expect(draft.askRules).toEqual(["current_time"]);
    expect(draft.routing.rules).toEqual([
      {
        id: "finance",
        match: { risks: ["network"] },
        approvers: ["owner@example.com", "second@example.com"],
        expiryMinutes: 90,
        critical: true,
      },
    ]);

    await page.getByRole("tab", { name: "Ask and approval routing" }).click();
    await save(page, "routing form");
    await page.reload();
    await page.getByRole("tab", { name: "Sandbox, approvals, MCP" }).click();
    await page.getByRole("tab", { name: "Ask and approval routing" }).click();
    await expect(page.getByLabel("Ask before every call of")).toHaveValue("current_time");
    await expect(page.getByTestId("routing-rule").getByLabel("Approvers (e-mail addresses)")).toHaveValue(
      "owner@example.com, second@example.com",
    );
    expect((await stored(page)).routing.rules[0]).toMatchObject({ id: "finance", critical: true });
  });

  test("MCP servers: add one with checked id, command and timeout; it is listed and switched on", async ({ page }) => {
    await openForms(page, "MCP servers");
    const add = page.getByTestId("mcp-add");
    const button = add.getByRole("button", { name: "Add server" });
    await add.getByLabel("Id", { exact: true }).fill("Files_");
    await expect(add).toContainText("lower-case letters, digits");
    await add.getByLabel("Id", { exact: true }).fill("files");
    await expect(add).toContainText("✕"); // no command yet
    await expect(button).toBeDisabled();
    await add.getByLabel("Command", { exact: true }).fill("/usr/bin/true");
    await add.getByLabel("Arguments, one per line").fill("--root\n/tmp");
    await add.getByLabel("Timeout per call (seconds)").fill("0.01");
    await expect(add).toContainText("a number of seconds from 0.1 to 600");
    await add.getByLabel("Timeout per call (seconds)").fill("20");
    await add.getByRole("radio", { name: "Connect to a URL" }).check();
    await add.getByLabel("URL", { exact: true }).fill("ftp://example.com");
    await expect(button).toBeDisabled();
    await add.getByRole("radio", { name: /Start a program/ }).check();
    await expect(button).toBeEnabled();
    await button.click();
    const server = page.getByTestId("mcp-form-files");
    await expect(server).toBeVisible();
    await expect(server).toContainText("Program: /usr/bin/true --root /tmp");
    await expect(server.getByRole("checkbox", { name: "On (in the allowed servers)" })).toBeChecked();

    const draft = (await draftJson(page)) as {
      mcpServers: Array<Record<string, unknown>>;
      system: { mcp: { enabled: boolean; allowedServers: string[] } };
    };
    expect(draft.mcpServers[0]).toMatchObject({
      id: "files",
      timeoutMs: 20_000,
      allowedModes: ["coding"],
      transport: { type: "stdio", command: "/usr/bin/true", args: ["--root", "/tmp"] },
    });
    expect(draft.system.mcp).toEqual({ enabled: true, allowedServers: ["files"] });

    await page.getByRole("tab", { name: "MCP servers" }).click();
    // Adding the same id again is refused while typing.
    await page.getByTestId("mcp-add").getByLabel("Id", { exact: true }).fill("files");
    await expect(page.getByTestId("mcp-add")).toContainText('duplicate MCP server id "files"');
    await page.getByTestId("mcp-add").getByLabel("Id", { exact: true }).fill("");
    await save(page, "mcp form");
    // A full run once hung here for 60 s in the reload (cause not found; a leave-page prompt would do it): the stored
    // document is what is checked below, so a prompt, if any, is accepted and named in the log.
    page.once("dialog", (dialog) => {
      console.warn(`policy-forms: a ${dialog.type()} dialog on reload after saving`);
      void dialog.accept();
    });
    await page.reload();
    await page.getByRole("tab", { name: "Sandbox, approvals, MCP" }).click();
    await page.getByRole("tab", { name: "MCP servers" }).click();
    await expect(page.getByTestId("mcp-form-files").getByLabel("Timeout per call (seconds)")).toHaveValue("20");
    expect((await stored(page)).mcpServers[0]).toMatchObject({ id: "files", timeoutMs: 20_000 });
  });

  test("subagents: depth checked as typed, a denied tool flips in a subagent context", async ({ page }) => {
    await openForms(page, "Subagents");
    const depth = page.getByLabel("How many levels of helpers");
    await depth.fill("11");
    await expect(page.getByRole("alert").filter({ hasText: "at most 10" })).toBeVisible();
    await depth.fill("2");
    await page.getByRole("spinbutton", { name: /^Subagent depth/ }).fill("1");
    await page.getByLabel("Tools a helper may not use").fill("read");
    const effect = page.getByTestId("draft-effect");
    await expect(effect).toContainText("read in coding");
    await expect(effect).toContainText("denied");
    const draft = (await draftJson(page)) as { subagents: unknown };
    expect(draft.subagents).toEqual({ maxSpawnDepth: 2, tools: { deny: ["read"] } });
    await save(page, "subagents form");
    await page.reload();
    await page.getByRole("tab", { name: "Sandbox, approvals, MCP" }).click();
    await page.getByRole("tab", { name: "Subagents" }).click();
    await expect(page.getByLabel("How many levels of helpers")).toHaveValue("2");
    await expect(page.getByLabel("Tools a helper may not use")).toHaveValue("read");
  });

  test("screens and axe: every form at 1280×800 and 390×844, light and dark", async ({ page }) => {
    test.setTimeout(240_000);
    await page.goto("/admin/policy");
    await expect(page.getByRole("tablist", { name: "Policy editor" })).toBeVisible();
    await page.getByRole("tab", { name: "Sandbox, approvals, MCP" }).click();
    for (const screen of SCREENS) {
      await page.emulateMedia({ colorScheme: screen.scheme });
      await page.setViewportSize({ width: screen.width, height: screen.height });
      for (const [part, slug] of [
        ["Sandbox and exec", "exec"],
        ["Ask and approval routing", "routing"],
        ["MCP servers", "mcp"],
        ["Subagents", "subagents"],
      ] as const) {
        await page.getByRole("tab", { name: part }).click();
        // An invalid entry, so the screenshot shows how a problem reads.
        if (slug === "exec") await page.getByLabel("Time one command may run (seconds)").fill("soon");
        if (slug === "routing")
          await page.getByTestId("routing-rule-new").getByLabel("Approvers (e-mail addresses)").fill("not-an-address");
        if (slug === "mcp") await page.getByTestId("mcp-add").getByLabel("Id", { exact: true }).fill("Bad id");
        await page.getByRole("tab", { name: part }).scrollIntoViewIfNeeded();
        await page.screenshot({ path: shotPath(`policy-forms-${slug}-${screen.name}.png`), fullPage: false });
        const results = await new AxeBuilder({ page })
          .setLegacyMode(true)
          .options({ resultTypes: ["violations"] })
          .analyze();
        const serious = results.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map(
            (v) =>
              `${v.id}: ${v.nodes
                .map((n) => n.target.join(" "))
                .slice(0, 3)
                .join(", ")}`,
          );
        expect(serious, `${slug} ${screen.name}`).toEqual([]);
      }
    }
  });
});
