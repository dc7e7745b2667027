// Issue 15 "Done when": axe-core finds no serious or critical accessibility violation on any page, at desktop
// (1280×800) and phone (390×844) size, in light and dark mode. Each page is checked once it shows its content
// (tool cards, an open approval, the admin tables), with every tab of the policy editor.
import AxeBuilder from "@axe-core/playwright";
import { request, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { signInAs, shotPath } from "./helpers";

const VIEWPORTS = [
  { name: "1280", width: 1280, height: 800 },
  { name: "390", width: 390, height: 844 },
] as const;

type Role = "member" | "owner" | "admin";
const states = new Map<Role, Awaited<ReturnType<BrowserContext["storageState"]>>>();
let chatId = "";
let approvalSessionId = "";

async function contextFor(browser: Browser, role: Role | null, viewport: (typeof VIEWPORTS)[number]) {
  return browser.newContext({
    viewport: { width: viewport.width, height: viewport.height },
    colorScheme: "light",
    storageState: role ? states.get(role) : undefined,
  });
}

// Violations tolerated for a while, each only for its rule and element and listed in the report (none today:
// an entry needs the reason and the file that should fix it).
const KNOWN: Array<{ rule: string; html: string; why: string }> = [];

async function expectNoSeriousViolations(page: Page, label: string) {
  // axe's default rule set (every WCAG level A/AA rule and its best practices), as a plain axe-core run reports.
  // Legacy mode runs axe in the page itself instead of finishing each run in a new blank page (that mode exists for
  // cross-origin frames, which no page here has), and only violations are collected node by node (passes are still
  // listed by rule). Measured on the policy page: 0.9 s a run instead of 3.3 s, with the same rules passing and failing.
  const results = await new AxeBuilder({ page })
    .setLegacyMode(true)
    .options({ resultTypes: ["violations"] })
    .analyze();
  const serious = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      ...v,
      nodes: v.nodes.filter((n) => !KNOWN.some((k) => k.rule === v.id && n.html.includes(k.html))),
    }))
    .filter((v) => v.nodes.length > 0);
  for (const v of results.violations) {
    const known = KNOWN.find((k) => k.rule === v.id && v.nodes.some((n) => n.html.includes(k.html)));
    if (known) test.info().annotations.push({ type: "known axe violation", description: `${label}: ${known.why}` });
  }
  const report = serious.map(
    (v) =>
      `${v.impact} ${v.id}: ${v.help}\n${v.nodes
        .slice(0, 5)
        .map((n) => `    ${n.target.join(" ")} — ${n.failureSummary?.split("\n").slice(1, 2).join(" ")}`)
        .join("\n")}`,
  );
  expect(report, `${label}: serious or critical axe violations`).toEqual([]);
  // The check ran on real content, not an empty shell.
  expect(results.passes.length).toBeGreaterThan(5);
}

// The longest file by far (axe on every page, four times): its checks are spread over the workers instead of
// keeping one busy while the other runs out of files. Each worker signs in and makes its chats once (beforeAll
// runs per worker), on its own app.
test.describe.configure({ mode: "parallel" });

test.beforeAll(async ({ browser }) => {
  for (const [role, email] of [
    ["member", "member@example.com"],
    ["owner", "owner@example.com"],
    ["admin", "admin@example.com"],
  ] as const) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signInAs(page, email);
    states.set(role, await ctx.storageState());
    if (role === "member") {
      // A chat with tool cards (an allowed call and a refused one), and a pending request for the inbox.
      chatId = (await (await page.request.post("/api/sessions", { data: { title: "a11y" } })).json()).id;
      const turn = await page.request.post("/api/chat", {
        data: {
          sessionId: chatId,
          message: {
            role: "user",
            parts: [{ type: "text", text: '/tool current_time {}\n/tool read {"path":"notes.md"}' }],
          },
        },
      });
      expect(turn.status()).toBe(200);
      await turn.body();
      approvalSessionId = (
        await (await page.request.post("/api/sessions", { data: { title: "a11y approvals" } })).json()
      ).id;
    }
    await ctx.close();
  }
});

type Check = {
  name: string;
  role: Role | null;
  path: () => string;
  ready: (page: Page) => Promise<void>;
  then?: (page: Page, check: (label: string) => Promise<void>) => Promise<void>;
};

const heading = (name: string | RegExp) => async (page: Page) => {
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
};

const CHECKS: Check[] = [
  { name: "sign-in", role: null, path: () => "/login", ready: heading("Sign in to Toolgate") },
  { name: "chat list", role: "member", path: () => "/chat", ready: heading("Chat") },
  {
    name: "chat with tool cards",
    role: "member",
    path: () => `/chat/${chatId}`,
    ready: async (page) => {
      await expect(page.getByText(/Tool read denied/)).toBeVisible();
      await expect(page.getByText("current_time").first()).toBeVisible();
    },
  },
  {
    name: "approvals with a request open",
    role: "owner",
    path: () => "/approvals",
    ready: async (page) => {
      // Asked now, not in beforeAll: a request expires after a few minutes, and this check may run much later.
      const member = await request.newContext({
        baseURL: new URL(page.url()).origin,
        storageState: states.get("member"),
      });
      const asked = await member.post("/api/approvals", {
        data: {
          sessionId: approvalSessionId,
          toolName: "exec",
          callId: `a11y-${Date.now()}`,
          args: { command: "rm -rf ./build && curl https://example.com" },
        },
      });
      expect(asked.status()).toBe(202);
      await member.dispose();
      await page.reload();
      await page.getByTestId("pending-list").getByTestId("approval-row").first().click();
      await expect(page.getByTestId("approval-detail")).toBeVisible();
      await expect(page.getByTestId("risk-cues")).toBeVisible();
    },
  },
  {
    name: "read-only session",
    role: "owner",
    path: () => `/approvals/sessions/${chatId}`,
    ready: async (page) => expect(page.getByRole("heading", { level: 1 })).toBeVisible(),
  },
  {
    name: "grants",
    role: "owner",
    path: () => "/grants",
    ready: async (page) => expect(page.getByRole("heading", { level: 1 })).toBeVisible(),
  },
  { name: "admin home", role: "admin", path: () => "/admin", ready: heading("Admin") },
  {
    name: "admin policy",
    role: "admin",
    path: () => "/admin/policy",
    ready: async (page) => expect(page.getByRole("tablist", { name: "Policy editor" })).toBeVisible(),
    then: async (page, check) => {
      for (const tab of ["JSON", "Preview: replay", "History", "Import / export"]) {
        await page.getByRole("tab", { name: tab }).click();
        await expect(page.getByRole("tab", { name: tab })).toHaveAttribute("aria-selected", "true");
        await page.waitForTimeout(300);
        await check(`admin policy, ${tab} tab`);
      }
    },
  },
  {
    name: "admin audit",
    role: "admin",
    path: () => "/admin/audit",
    ready: async (page) => expect(page.getByRole("heading", { level: 1 })).toBeVisible(),
  },
  {
    name: "admin users",
    role: "admin",
    path: () => "/admin/users",
    ready: async (page) => expect(page.getByTestId("user-row").first()).toBeVisible(),
  },
  {
    name: "admin MCP servers",
    role: "admin",
    path: () => "/admin/mcp",
    ready: async (page) => expect(page.getByRole("heading", { level: 1 })).toBeVisible(),
  },
];

// Light and dark are checked on the same loaded page (the scheme is switched with emulateMedia: Tailwind's dark
// variant follows prefers-color-scheme), which halves the page loads.
for (const viewport of VIEWPORTS) {
  test.describe(`${viewport.name}`, () => {
    for (const check of CHECKS) {
      test(`${check.name}: no serious or critical axe violations, light and dark`, async ({ browser }) => {
        // The policy page holds the whole tool matrix, and is checked once per editor tab.
        test.setTimeout(check.then ? 300_000 : 120_000);
        const ctx = await contextFor(browser, check.role, viewport);
        const page = await ctx.newPage();
        await page.goto(check.path());
        await check.ready(page);
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.waitForTimeout(200); // let the last re-render (live data) settle
          await page.screenshot({
            path: shotPath(`a11y-${check.name.replace(/\W+/g, "-")}-${viewport.name}-${scheme}.png`),
          });
          await expectNoSeriousViolations(page, `${check.name} at ${viewport.name} ${scheme}`);
        }
        if (check.then) {
          for (const scheme of ["light", "dark"] as const) {
            await page.emulateMedia({ colorScheme: scheme });
            await check.then(page, (l) => expectNoSeriousViolations(page, `${l} at ${viewport.name} ${scheme}`));
          }
        }
        await ctx.close();
      });
    }
  });
}
