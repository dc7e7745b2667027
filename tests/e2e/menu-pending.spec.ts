// Issue 33 on a phone: the Approvals link (and its pending count) is inside the closed Menu at 390 px, so the Menu
// button carries the count: a badge, and in its accessible name ("Menu, 3 pending approvals"). It follows a
// decision live; a member (no approvals to decide) gets a plain "Menu". Desktop keeps the count on the link.
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { expectNoSeriousViolations, SCREENS, shotPath, signInAs } from "./helpers";

async function ask(request: APIRequestContext, sessionId: string, command: string) {
  const res = await request.post("/api/approvals", {
    data: {
      sessionId,
      toolName: "exec",
      callId: `menu-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      args: { command },
    },
  });
  expect(res.status()).toBe(202);
  return (await res.json()).id as string;
}

const pendingTotal = async (request: APIRequestContext) =>
  ((await (await request.get("/api/approvals?status=pending")).json()) as { total: number }).total;

for (const screen of SCREENS) {
  test(`the pending count on the Menu button (${screen.name})`, async ({ browser }) => {
    const memberCtx = await browser.newContext();
    const member = await memberCtx.newPage();
    await signInAs(member, "member@example.com");
    const session = await (await member.request.post("/api/sessions", { data: {} })).json();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await ask(member.request, session.id, `echo menu-${screen.name}-${i}`));

    const ownerCtx = await browser.newContext({
      viewport: { width: screen.width, height: screen.height },
      colorScheme: screen.scheme,
      isMobile: screen.size === "phone",
      hasTouch: screen.size === "phone",
    });
    const owner = await ownerCtx.newPage();
    await signInAs(owner, "owner@example.com");
    await owner.goto("/chat");
    // Other tests of this worker may have left requests pending: the count is whatever the server says.
    const total = await pendingTotal(owner.request);
    expect(total).toBeGreaterThanOrEqual(3);
    if (screen.size === "phone") {
      const menu = owner.getByRole("button", { name: `Menu, ${total} pending approvals` });
      await expect(menu).toBeVisible();
      await expect(owner.getByTestId("menu-pending-count")).toHaveText(String(total));
      await expect(owner.getByTestId("nav-pending-count")).toBeHidden(); // inside the closed menu
      // The badge fits the header's one row: nothing scrolls sideways and "Sign out" stays on one line.
      expect(await owner.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(screen.width);
      expect((await owner.getByRole("button", { name: "Sign out" }).boundingBox())!.height).toBeLessThan(40);
      await owner.screenshot({ path: shotPath(`menu-pending-${screen.name}.png`) });
      await expectNoSeriousViolations(owner, `menu pending ${screen.name}`);
      // A decision elsewhere: the count follows without a reload.
      expect(
        (await owner.request.post(`/api/approvals/${ids[0]}/decision`, { data: { decision: "deny" } })).status(),
      ).toBe(200);
      await expect(
        owner.getByRole("button", { name: `Menu, ${total - 1} pending approval${total - 1 === 1 ? "" : "s"}` }),
      ).toBeVisible();
      await owner.getByRole("button", { name: /^Menu/ }).click();
      await expect(owner.getByTestId("nav-pending-count")).toContainText(String(total - 1));
      await owner.screenshot({ path: shotPath(`menu-pending-open-${screen.name}.png`) });
      await expectNoSeriousViolations(owner, `menu pending open ${screen.name}`);

      // A member decides nothing: a plain Menu, no badge.
      const plainCtx = await browser.newContext({
        viewport: { width: screen.width, height: screen.height },
        colorScheme: screen.scheme,
        isMobile: true,
        hasTouch: true,
      });
      const plain = await plainCtx.newPage();
      await signInAs(plain, "member@example.com");
      await plain.goto("/chat");
      await expect(plain.getByRole("button", { name: "Menu", exact: true })).toBeVisible();
      await expect(plain.getByTestId("menu-pending-count")).toHaveCount(0);
      await plainCtx.close();
    } else {
      await expect(owner.getByRole("button", { name: /^Menu/ })).toBeHidden();
      await expect(owner.getByTestId("nav-pending-count")).toContainText(String(total));
      await owner.screenshot({ path: shotPath(`menu-pending-${screen.name}.png`) });
      await expectNoSeriousViolations(owner, `menu pending ${screen.name}`);
    }
    for (const id of ids.slice(screen.size === "phone" ? 1 : 0))
      await owner.request.post(`/api/approvals/${id}/decision`, { data: { decision: "deny" } });
    await ownerCtx.close();
    await memberCtx.close();
  });
}
