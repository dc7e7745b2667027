// Issue #33: a styled 404 (status 404, light and dark, phone and desktop, no serious axe violation) and a title per
// page, where a chat page carries its own title for its owner only: another member's chat, or an id that names
// nothing, gets the 404's title, so a title never tells whether a chat exists or what it is called.
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "./fixtures";
import { shotPath, signInAs } from "./helpers";

const VIEWPORTS = [
  { name: "1280", width: 1280, height: 800 },
  { name: "390", width: 390, height: 844 },
] as const;

for (const viewport of VIEWPORTS) {
  for (const signedIn of [false, true]) {
    test(`an unknown address shows the styled 404 (status 404, no serious axe violation, light and dark) at ${viewport.name}, ${signedIn ? "signed in" : "signed out"}`, async ({
      browser,
    }) => {
      const ctx = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
      const page = await ctx.newPage();
      try {
        if (signedIn) await signInAs(page, "member@example.com");
        const res = await page.goto(`/no-such-page-${viewport.name}`);
        expect(res?.status()).toBe(404);
        await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
        await expect(page).toHaveTitle("Page not found — Toolgate");
        await expect(page.getByRole("link", { name: "Back to the chat" })).toHaveAttribute("href", "/chat");
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          if (signedIn) await page.screenshot({ path: shotPath(`page-not-found-${viewport.name}-${scheme}.png`) });
          const results = await new AxeBuilder({ page })
            .setLegacyMode(true)
            .options({ resultTypes: ["violations"] })
            .analyze();
          const serious = results.violations
            .filter((v) => v.impact === "serious" || v.impact === "critical")
            .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
          expect(serious, `404 at ${viewport.name} ${scheme}`).toEqual([]);
        }
        // The link leads back into the app (or to sign in first, for a visitor who is signed out).
        await page.getByRole("link", { name: "Back to the chat" }).click();
        await expect(page).toHaveURL(signedIn ? /\/chat/ : /\/login/);
      } finally {
        await ctx.close();
      }
    });
  }
}

test("each main page has its own title", async ({ browser }) => {
  const ctx = await browser.newContext();
  const ownerCtx = await browser.newContext();
  const page = await ctx.newPage();
  try {
    await page.goto("/login");
    await expect(page).toHaveTitle("Sign in — Toolgate");
    await signInAs(page, "admin@example.com");
    // The owner's tab puts a pending count in front of the title ("(2) Inbox — Toolgate"); the admin demo user is
    // not an owner, but another spec file may have made it one on this shared app, so the prefix is allowed.
    const pages: Array<[string, string]> = [
      ["/chat", "Chat"],
      ["/settings", "Settings"],
      ["/admin", "Admin"],
      ["/admin/policy", "Policy"],
      ["/admin/audit", "Audit"],
      ["/admin/users", "Users"],
    ];
    for (const [path, title] of pages) {
      await page.goto(path);
      await expect(page, path).toHaveTitle(new RegExp(`^(\\(\\d+\\) )?${title} — Toolgate$`));
    }
    // The owner in a context of their own: signing in again over the admin's session would land on /chat.
    const owner = await ownerCtx.newPage();
    await signInAs(owner, "owner@example.com");
    await owner.goto("/approvals");
    await expect(owner).toHaveTitle(/^(\(\d+\) )?Inbox — Toolgate$/);
    await owner.goto("/grants");
    await expect(owner).toHaveTitle(/^(\(\d+\) )?Grants — Toolgate$/);
  } finally {
    await ctx.close();
    await ownerCtx.close();
  }
});

test("a chat page is titled by the chat for its owner; another member's chat or an unknown id gets the 404 title", async ({
  browser,
}) => {
  const ownerCtx = await browser.newContext();
  const memberCtx = await browser.newContext();
  const owner = await ownerCtx.newPage();
  const member = await memberCtx.newPage();
  try {
    await signInAs(owner, "owner@example.com");
    await signInAs(member, "member@example.com");
    const secret = `Owner secret plan ${Date.now()}`;
    const res = await owner.request.post("/api/sessions", { data: { title: secret } });
    expect(res.status(), await res.text()).toBeLessThan(300);
    const { id } = (await res.json()) as { id: string };

    await owner.goto(`/chat/${id}`);
    await expect(owner).toHaveTitle(new RegExp(`^(\\(\\d+\\) )?${secret} — Toolgate$`));

    for (const target of [`/chat/${id}`, "/chat/no-such-chat-id", "/chat/%20"]) {
      await member.goto(target);
      await expect(member.getByRole("heading", { name: "Chat not found" })).toBeVisible();
      await expect(member, target).toHaveTitle("Page not found — Toolgate");
      expect(await member.content()).not.toContain(secret);
    }
  } finally {
    await ownerCtx.close();
    await memberCtx.close();
  }
});
