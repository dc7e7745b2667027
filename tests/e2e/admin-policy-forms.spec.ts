// Issue 33 in the browser: the matrix opens on a real person with their granted modes and says so; an OpenClaw import
// that denies exec to an agent shows that agent's exec cell flipping before it reaches the draft; the agents,
// profiles and providers forms check as you type, keep the JSON in step and show their matrix effect before saving.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { SCREENS, consoleProblems, savePolicy, shotPath, signInAs } from "./helpers";

const cell = (page: Page, tool: string, mode: string) =>
  page.getByRole("button", { name: new RegExp(`^${tool} in ${mode}:`) });
const contextLine = (page: Page) => page.getByTestId("matrix-context");
/** The draft as the JSON editor holds it (CodeMirror renders only the lines in view). */
const draftJson = async (page: Page) =>
  JSON.parse(
    await page.evaluate(() => {
      type Tiled = { cmTile?: { root?: { view?: { state: { doc: { toString(): string } } } } } };
      const content = document.querySelector('[aria-label="Policy document (JSON)"]') as (Element & Tiled) | null;
      return content?.cmTile?.root?.view?.state.doc.toString() ?? "";
    }),
  );
// Version 1: exec in allowlist mode, so an owner's exec in coding "needs approval" (sandbox mode would allow it).
/** The matrix's person, fixed: other spec files of this worker's app may add people who would be the default. */
async function pickOwner(page: Page) {
  await page.getByRole("combobox", { name: "Person" }).selectOption({ label: "owner@example.com" });
  await expect(contextLine(page)).toContainText("(owner@example.com), roles member and owner");
}
const WITH_CODER = { version: 1, agents: { coder: { name: "Coder", usableBy: { roles: ["member"] } } } };

test.describe("policy forms and previews (issue 33)", () => {
  test.afterEach(async ({ page }) => {
    await savePolicy(page.request, { version: 1 }, "e2e cleanup");
  });

  test("the matrix opens on the person with the most granted modes and names that context in one line", async ({
    page,
  }) => {
    await signInAs(page, "admin@example.com");
    await savePolicy(page.request, { version: 1 }, "baseline");
    await page.goto("/admin/policy");
    // With the demo accounts alone the owner (other spec files of this worker's app may add owners sorting earlier).
    await expect(contextLine(page)).toHaveText(
      /^Context: .+ \(.+@.+\), roles member and owner, no agent, provider offline\. Granted chat_safe and coding\.$/,
    );
    await expect(page.getByText(/not granted: evaluated as/)).toHaveCount(0);
    await expect(cell(page, "exec", "coding")).toHaveAttribute("data-status", "ask");
    await expect(page.getByRole("combobox", { name: "Person" })).toHaveValue(/.+/);

    // Picking the plain member shows their truth: coding is not granted to them.
    await page.getByRole("combobox", { name: "Person" }).selectOption({ label: "member@example.com" });
    await expect(contextLine(page)).toContainText("Max Member (member@example.com), roles member");
    await expect(contextLine(page)).toContainText("coding not granted (evaluated as chat_safe)");
    await expect(page.getByText("not granted: evaluated as chat_safe")).toBeVisible();

    // A member granted coding becomes the default.
    await savePolicy(
      page.request,
      { version: 1, modeGrants: { users: { "member@example.com": ["chat_safe", "coding"] } } },
      "member codes",
    );
    await page.reload();
    await expect(contextLine(page)).toContainText(
      "Max Member (member@example.com), roles member, no agent, provider offline. Granted chat_safe and coding.",
    );
  });

  test("an OpenClaw import that denies exec to an agent shows its exec cell flipping before it reaches the draft", async ({
    page,
  }) => {
    await signInAs(page, "admin@example.com");
    await savePolicy(page.request, WITH_CODER, "an agent");
    await page.goto("/admin/policy");
    await pickOwner(page);
    await expect(cell(page, "exec", "coding")).toHaveAttribute("data-status", "ask");
    await page.getByRole("tab", { name: /Import/ }).click();
    await page
      .getByLabel("Text to import")
      .fill("// no shell for the coder\n{ agents: { list: [ { id: 'coder', tools: { deny: ['exec'] } } ] } }");
    await page.getByRole("button", { name: "Preview the import" }).click();
    const flips = page.getByTestId("import-flips");
    await expect(flips).toContainText("owner@example.com: no cell changes");
    await expect(flips).toContainText(
      "owner@example.com with agent coder: 1 cell changes — exec in coding: needs approval → denied",
    );
    await page.getByTestId("import-preview").scrollIntoViewIfNeeded();
    await page.screenshot({ path: shotPath("policy-import-agent-flip.png") });
    // Not in the draft yet.
    await expect(page.getByText("No changes")).toBeVisible();
    await page.getByRole("button", { name: "Apply to the draft" }).click();
    await expect(page.getByText("Unsaved draft")).toBeVisible();
    // The draft, once applied, names the agent's context under the matrix.
    await expect(page.getByTestId("draft-context-flips")).toContainText(
      "owner@example.com with agent coder: 1 cell changes",
    );
    await page.getByTestId("draft-context-flips").scrollIntoViewIfNeeded();
    await page.screenshot({ path: shotPath("policy-draft-context-flips.png") });
    await page.getByRole("button", { name: "Show owner@example.com with agent coder in the matrix" }).click();
    await expect(page.getByRole("combobox", { name: "Agent" })).toHaveValue("coder");
    await expect(cell(page, "exec", "coding")).toHaveAttribute("data-status", "denied");
    await expect(cell(page, "exec", "coding")).toHaveAttribute("data-flipped", "true");
  });

  test("the agent form: checks as you type, keeps the JSON in step and shows the matrix effect before saving", async ({
    page,
  }) => {
    const problems = consoleProblems(page);
    await signInAs(page, "admin@example.com");
    await savePolicy(page.request, WITH_CODER, "an agent");
    await page.goto("/admin/policy");
    await pickOwner(page);
    await page.getByRole("tab", { name: "Agents, profiles, providers" }).click();
    await expect(page.getByTestId("form-effect")).toContainText("No unsaved changes");
    const card = page.getByTestId("agent-form-coder");

    const deny = card.getByLabel("Never allow (coder)");
    await deny.fill("exce");
    await expect(card.getByText('"exce" matches no tool or group')).toBeVisible();
    await deny.fill("exec");
    await expect(card.getByText(/matches no tool/)).toHaveCount(0);
    await deny.press("Enter");
    const effect = page.getByTestId("form-effect");
    await expect(effect).toContainText("Effect of the draft on the matrix (not saved yet)");
    await expect(effect).toContainText(
      "owner@example.com with agent coder: 1 cell changes — exec in coding: needs approval → denied",
    );

    const name = card.getByLabel("Display name of coder");
    await name.fill("   ");
    await expect(name).toHaveAttribute("aria-invalid", "true");
    await name.fill("Coder Bot");
    await expect(name).not.toHaveAttribute("aria-invalid", "true");
    await name.press("Enter");

    const starters = card.getByLabel("Starter prompts of coder");
    await starters.fill(Array.from({ length: 9 }, (_, i) => `prompt ${i + 1}`).join("\n"));
    await expect(starters).toHaveAttribute("aria-invalid", "true");
    await starters.fill("Fix the failing test\nExplain this repo");
    await starters.blur();
    await card.getByRole("checkbox", { name: "every owner" }).check();
    await card
      .getByRole("combobox", { name: "People who may chat as coder (e-mail addresses)" })
      .selectOption("member@example.com");

    // A new agent: the id is checked as you type.
    const newId = page.getByLabel("New agent id");
    await newId.fill("coder");
    await expect(page.getByText('there is already an agent "coder"')).toBeVisible();
    await newId.fill("helper bot");
    await expect(page.getByRole("button", { name: "Add agent" })).toBeDisabled();
    await newId.fill("helper");
    await page.getByRole("button", { name: "Add agent" }).click();
    await expect(page.getByTestId("agent-form-helper")).toBeVisible();

    // Profiles and providers.
    await page.getByLabel("New profile id").fill("coding");
    await expect(page.getByText('"coding" is a built-in profile')).toBeVisible();
    await page.getByLabel("New profile id").fill("research");
    await page.getByRole("button", { name: "Add profile" }).click();
    await page.getByLabel("Provider or provider/model").fill("openai/");
    await expect(page.getByText("write provider or provider/model (both parts)")).toBeVisible();
    await page.getByLabel("Provider or provider/model").fill("openai");
    await page.getByRole("button", { name: "Add provider rules" }).click();
    await page.getByLabel("Never allow (openai)").fill("group:web");
    await page.getByLabel("Never allow (openai)").press("Enter");

    // The JSON view has every edit.
    await page.getByRole("tab", { name: "JSON" }).click();
    const json = await draftJson(page);
    expect(json.agents.coder).toEqual({
      name: "Coder Bot",
      tools: { deny: ["exec"] },
      usableBy: { roles: ["member", "owner"], users: ["member@example.com"] },
      starters: ["Fix the failing test", "Explain this repo"],
    });
    expect(json.agents.helper).toEqual({ name: "helper", tools: {} });
    expect(json.profiles.research).toEqual({ allow: ["read"] });
    expect(json.tools.byProvider).toEqual({ openai: { deny: ["group:web"] } });

    // Show the agent in the matrix: the flipped cell, then save.
    await page.getByRole("tab", { name: "Agents, profiles, providers" }).click();
    await page.getByRole("button", { name: "Show coder in the matrix" }).click();
    await expect(contextLine(page)).toContainText("agent coder");
    await expect(cell(page, "exec", "coding")).toHaveAttribute("data-flipped", "true");
    await page.getByRole("button", { name: "Save as new version" }).click();
    await expect(page.getByText(/Saved as version \d+/)).toBeVisible();
    const saved = (await (await page.request.get("/api/policy")).json()).document;
    expect(saved.agents.coder.tools.deny).toEqual(["exec"]);
    expect(saved.tools.byProvider.openai.deny).toEqual(["group:web"]);
    expect(problems).toEqual([]);
  });
});

test.describe("provider rules per agent (issue 33)", () => {
  test.afterEach(async ({ page }) => {
    await savePolicy(page.request, { version: 1 }, "e2e cleanup");
  });

  test("an agent's provider rules: the same form in its card, checked as typed, in the JSON, saved and shown again", async ({
    page,
  }) => {
    await signInAs(page, "admin@example.com");
    await savePolicy(
      page.request,
      { ...WITH_CODER, tools: { byProvider: { openai: { deny: ["exec"] } } } },
      "an agent",
    );
    await page.goto("/admin/policy");
    await page.getByRole("tab", { name: "Agents, profiles, providers" }).click();
    const rules = page.getByTestId("agent-providers-coder");
    const key = rules.getByLabel("Provider (or provider/model) for agent coder");
    await key.fill("openai/");
    await expect(rules).toContainText("write provider or provider/model (both parts)");
    await expect(rules.getByRole("button", { name: "Add rules by provider for coder" })).toBeDisabled();
    await key.fill("openai/gpt-4o");
    await rules.getByRole("button", { name: "Add rules by provider for coder" }).click();
    const deny = rules.getByLabel("Never allow (openai/gpt-4o, agent coder)");
    await deny.fill("reed");
    await expect(rules.getByText('"reed" matches no tool or group')).toBeVisible();
    await deny.fill("read");
    await deny.press("Enter");
    await rules.getByRole("combobox", { name: "Profile (openai/gpt-4o, agent coder)" }).selectOption("minimal");
    // The document's own provider rules are untouched, and keep their names.
    await expect(page.getByLabel("Never allow (openai)")).toHaveValue("exec");

    await page.getByRole("tab", { name: "JSON" }).click();
    const json = await draftJson(page);
    expect(json.agents.coder.tools).toEqual({
      byProvider: { "openai/gpt-4o": { deny: ["read"], profile: "minimal" } },
    });
    expect(json.tools.byProvider).toEqual({ openai: { deny: ["exec"] } });
    await page.getByRole("tab", { name: "Agents, profiles, providers" }).click();
    await page.getByRole("button", { name: "Save as new version" }).click();
    await expect(page.getByText(/Saved as version \d+/)).toBeVisible();
    await page.reload();
    await page.getByRole("tab", { name: "Agents, profiles, providers" }).click();
    await expect(
      page.getByTestId("agent-providers-coder").getByLabel("Never allow (openai/gpt-4o, agent coder)"),
    ).toHaveValue("read");
    await page.getByRole("button", { name: "Remove rules of agent coder for openai/gpt-4o" }).click();
    await page.getByRole("tab", { name: "JSON" }).click();
    expect((await draftJson(page)).agents.coder.tools).toEqual({});
  });
});

// Own browser contexts per screen (the describe's afterEach cleans up with the default page, which is not signed in here).
test.describe("policy forms on every screen (issue 33)", () => {
  for (const screen of SCREENS) {
    test(`the forms tab with a pending change (${screen.name}): screenshots, axe finds nothing serious`, async ({
      browser,
    }) => {
      const ctx = await browser.newContext({
        viewport: { width: screen.width, height: screen.height },
        colorScheme: screen.scheme,
        isMobile: screen.size === "phone",
        hasTouch: screen.size === "phone",
      });
      const page = await ctx.newPage();
      await signInAs(page, "admin@example.com");
      await savePolicy(
        page.request,
        {
          ...WITH_CODER,
          profiles: { research: { allow: ["read", "group:web"] } },
          tools: { byProvider: { openai: { deny: ["exec"] } } },
        },
        "screens",
      );
      await page.goto("/admin/policy");
      await pickOwner(page);
      await page.screenshot({ path: shotPath(`policy-forms-matrix-${screen.name}.png`) });
      await page.getByRole("tab", { name: "Agents, profiles, providers" }).click();
      await page.getByLabel("Never allow (coder)").fill("exec, wirte");
      await page.getByLabel("Never allow (coder)").press("Enter");
      await expect(page.getByTestId("form-effect")).toContainText("exec in coding: needs approval → denied");
      const axe = await new AxeBuilder({ page })
        .setLegacyMode(true)
        .options({ resultTypes: ["violations"] })
        .analyze();
      expect(
        axe.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
      ).toEqual([]);
      await page.getByTestId("form-effect").scrollIntoViewIfNeeded();
      await page.screenshot({ path: shotPath(`policy-forms-${screen.name}.png`) });
      // The app shell scrolls inside, so a full-page shot stops at the viewport: a tall viewport shows the whole panel.
      await page.setViewportSize({ width: screen.width, height: 3200 });
      await page.locator("#panel-forms").screenshot({ path: shotPath(`policy-forms-panel-${screen.name}.png`) });
      await page.setViewportSize({ width: screen.width, height: screen.height });

      // The import preview on this screen: the agent's context lists its flipped exec cell.
      await page.getByRole("tab", { name: /Import/ }).click();
      // Ten agents: the preview compares the base context and seven agents (a cap of 8) and names the three it left out.
      const more = Array.from({ length: 9 }, (_, i) => `{ id: 'z0${i + 1}', tools: { deny: ['read'] } }`).join(", ");
      await page
        .getByLabel("Text to import")
        .fill(`{ agents: { list: [ { id: 'coder', tools: { deny: ['read'] } }, ${more} ] } }`);
      await page.getByRole("button", { name: "Preview the import" }).click();
      await expect(page.getByTestId("import-flips")).toContainText(
        "owner@example.com with agent coder: 1 cell changes — read in coding: allowed → denied",
      );
      await expect(page.getByTestId("import-left-out")).toHaveText(
        "3 more agents not compared: z07, z08 and z09. Pick one in the matrix's context to see its cells.",
      );
      const axeImport = await new AxeBuilder({ page })
        .setLegacyMode(true)
        .options({ resultTypes: ["violations"] })
        .analyze();
      expect(
        axeImport.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id),
      ).toEqual([]);
      await page.getByTestId("import-preview").scrollIntoViewIfNeeded();
      await page.screenshot({ path: shotPath(`policy-import-preview-${screen.name}.png`) });
      await savePolicy(page.request, { version: 1 }, "e2e cleanup");
      await ctx.close();
    });
  }
});
