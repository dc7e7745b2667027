// Issue 15 on a phone (390×844): with a long decided history, tapping a pending request opens it above the lists
// and scrolls to it, and its decision buttons are on screen; each request carries labelled risk cues
// (`rm -rf` is marked destructive, `echo` is not).
import { type APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { signInAs, consoleProblems, shotPath } from "./helpers";

async function ask(request: APIRequestContext, sessionId: string, command: string) {
  const res = await request.post("/api/approvals", {
    data: {
      sessionId,
      toolName: "exec",
      callId: `phone-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      args: { command },
    },
  });
  expect(res.status()).toBe(202);
  return (await res.json()).id as string;
}

for (const colorScheme of ["light", "dark"] as const) {
  test(`phone (${colorScheme}): the open request and its decision buttons are on screen; risk cues are labelled`, async ({
    browser,
  }) => {
    const memberCtx = await browser.newContext();
    const member = await memberCtx.newPage();
    await signInAs(member, "member@example.com");
    const session = await (await member.request.post("/api/sessions", { data: {} })).json();
    const tag = `${colorScheme}-${Date.now().toString(36)}`;

    const ownerCtx = await browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme,
      isMobile: true,
      hasTouch: true,
    });
    const owner = await ownerCtx.newPage();
    const problems = consoleProblems(owner);
    await signInAs(owner, "owner@example.com");
    // A decided history long enough to push everything below it off the screen.
    // The first is approved, so `echo` is no longer a first use for this member.
    for (let i = 0; i < 12; i++) {
      const id = await ask(member.request, session.id, `echo old-${tag}-${i}`);
      expect(
        (
          await owner.request.post(`/api/approvals/${id}/decision`, {
            data: { decision: i === 0 ? "allow-once" : "deny" },
          })
        ).status(),
      ).toBe(200);
    }
    const harmless = await ask(member.request, session.id, `echo hello-${tag}`);
    const risky = await ask(member.request, session.id, `rm -rf ./build-${tag}`);

    await owner.goto("/approvals");
    const pending = owner.getByTestId("pending-list");
    const riskyRow = pending.getByTestId("approval-row").filter({ hasText: `build-${tag}` });
    const harmlessRow = pending.getByTestId("approval-row").filter({ hasText: `hello-${tag}` });
    await expect(riskyRow.locator('[data-risk="destructive"]')).toHaveText("Destructive");
    await expect(riskyRow.locator('[data-risk="first-use"]')).toHaveText("First use"); // rm was never approved for them
    await expect(harmlessRow).toBeVisible();
    await expect(harmlessRow.locator("[data-risk]")).toHaveCount(0);
    // The history is folded on a phone until asked for.
    await expect(owner.getByTestId("history-list")).toBeHidden();

    await riskyRow.tap();
    const detail = owner.getByTestId("approval-detail");
    await expect(detail).toHaveAttribute("data-approval-id", risky);
    await expect(detail.getByTestId("risk-cues")).toContainText("rm -r deletes whole directories");
    const allowOnce = detail.getByRole("button", { name: /Allow once/ });
    const deny = detail.getByRole("button", { name: /Deny/ });
    // Tapping scrolled the open request into view, and the buttons are within the 844 px screen.
    await expect(detail.getByRole("heading", { level: 2 })).toBeInViewport();
    for (const button of [allowOnce, deny]) {
      await expect(button).toBeInViewport();
      const box = (await button.boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(844);
    }
    await owner.screenshot({ path: shotPath(`approvals-390-${colorScheme}-open.png`) });
    await deny.tap();
    await expect(detail.getByTestId("approval-status")).toContainText("denied");
    // Nothing advanced by itself: the decided request stays open; the harmless one is still pending.
    await expect(detail).toHaveAttribute("data-approval-id", risky);
    expect((await (await owner.request.get(`/api/approvals/${harmless}`)).json()).approval.status).toBe("pending");

    await owner.getByRole("button", { name: /^Show \d+/ }).tap();
    await expect(owner.getByTestId("history-list")).toBeVisible();
    await expect(owner.getByTestId("history-list")).toContainText(`old-${tag}-0`);
    expect(problems).toEqual([]);
    // Leave nothing pending for the other browser tests.
    await owner.request.post(`/api/approvals/${harmless}/decision`, { data: { decision: "deny" } });
    await Promise.all([memberCtx.close(), ownerCtx.close()]);
  });
}
