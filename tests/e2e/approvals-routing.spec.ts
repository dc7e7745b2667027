// Issue 31 in the inbox: a request routed by a critical rule shows its rule and the quorum's progress ("1 of 2
// allowed") after the first owner's allow, on desktop and phone, light and dark. The rule matches only a tool name
// no other spec file uses, so the other files sharing this worker's app are not routed by it; the routing section
// is emptied again at the end.
import { expect, test } from "./fixtures";
import { consoleProblems, savePolicy, SCREENS, shotPath, signInAs } from "./helpers";

const TOOL = "routing_e2e_probe";

test("a critical request in the inbox: its rule and 1 of 2 allowed", async ({ browser }) => {
  const adminCtx = await browser.newContext();
  const admin = await adminCtx.newPage();
  await signInAs(admin, "admin@example.com");
  const current = await (await admin.request.get("/api/policy")).json();
  const rule = {
    id: "e2e-critical",
    match: { tools: [TOOL] },
    approvers: ["owner@example.com", "admin@example.com"],
    critical: true,
  };
  await savePolicy(admin.request, { ...current.document, routing: { rules: [rule] } }, "routing e2e");
  try {
    const memberCtx = await browser.newContext();
    const member = await memberCtx.newPage();
    await signInAs(member, "member@example.com");
    const session = await (await member.request.post("/api/sessions", { data: {} })).json();
    const asked = await member.request.post("/api/approvals", {
      data: {
        sessionId: session.id,
        toolName: TOOL,
        callId: `routing-${Date.now().toString(36)}`,
        args: { target: "production" },
      },
    });
    expect(asked.status()).toBe(202);
    const id = (await asked.json()).id as string;
    const first = await admin.request.post(`/api/approvals/${id}/decision`, { data: { decision: "allow-once" } });
    expect(first.status()).toBe(200);
    expect(await first.json()).toMatchObject({ status: "pending", quorum: { given: 1, needed: 2 } });
    // The same owner again is refused: a second, different owner must allow.
    expect(
      (await admin.request.post(`/api/approvals/${id}/decision`, { data: { decision: "allow-once" } })).status(),
    ).toBe(403);

    for (const screen of SCREENS) {
      const ctx = await browser.newContext({
        viewport: { width: screen.width, height: screen.height },
        colorScheme: screen.scheme,
      });
      const owner = await ctx.newPage();
      const problems = consoleProblems(owner);
      await signInAs(owner, "owner@example.com");
      await owner.goto(`/approvals?open=${id}`);
      const detail = owner.getByTestId("approval-detail");
      await expect(detail).toHaveAttribute("data-approval-id", id);
      await expect(detail.getByTestId("approval-routing")).toContainText("e2e-critical");
      await expect(detail.getByTestId("approval-routing")).toContainText("1 of 2 allowed");
      await detail.getByTestId("approval-routing").scrollIntoViewIfNeeded();
      await owner.screenshot({ path: shotPath(`approvals-routing-${screen.name}.png`) });
      expect(problems).toEqual([]);
      await ctx.close();
    }
    const second = await (await browser.newContext()).newPage();
    await signInAs(second, "owner@example.com");
    const done = await second.request.post(`/api/approvals/${id}/decision`, { data: { decision: "allow-once" } });
    expect(done.status()).toBe(200);
    expect(await done.json()).toMatchObject({ status: "approved" });
  } finally {
    const now = await (await admin.request.get("/api/policy")).json();
    await savePolicy(admin.request, { ...now.document, routing: { rules: [] } }, "routing e2e: done");
  }
});
