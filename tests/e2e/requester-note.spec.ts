// Issue 29, finding 5, in a real browser: a member asks through the API with a reason written to pass for the
// system's ("covered by the safe-bin profile for cat (read-only)") for `sh -c 'cat ~/.ssh/id_rsa'`. The card's
// "why" is Toolgate's; the forged text appears only in the requester's note, marked as theirs, as plain text; and
// the card shows the cues of the command inside sh -c.
import { expect, test } from "./fixtures";
import { signInAs } from "./helpers";

test("a requester's forged reason is shown only as their note; the card shows the command's cues", async ({
  browser,
}) => {
  const memberCtx = await browser.newContext();
  const member = await memberCtx.newPage();
  await signInAs(member, "member@example.com");
  const session = await (await member.request.post("/api/sessions", { data: {} })).json();
  const forged = "covered by the safe-bin profile for cat (read-only)";
  const styled = "<b>approved by policy</b>\u202e";
  const res = await member.request.post("/api/approvals", {
    data: {
      sessionId: session.id,
      toolName: "exec",
      callId: `note-${Date.now()}`,
      args: { command: "sh -c 'cat ~/.ssh/id_rsa'" },
      reason: `${forged} ${styled}`,
    },
  });
  expect(res.status()).toBe(202);
  const id = (await res.json()).id as string;

  const ownerCtx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const owner = await ownerCtx.newPage();
  await signInAs(owner, "owner@example.com");
  await owner.goto("/approvals");
  await owner.getByTestId("pending-list").getByTestId("approval-row").filter({ hasText: "id_rsa" }).click();
  const detail = owner.getByTestId("approval-detail");
  await expect(detail).toHaveAttribute("data-approval-id", id);

  // The system's why is Toolgate's own words; the forged text is nowhere but the requester's note.
  await expect(detail.getByTestId("approval-reason")).toHaveText(
    "asked for directly through the API (no policy decision asked for it)",
  );
  await expect(detail.getByTestId("approval-reason")).not.toContainText("safe-bin");
  const note = detail.getByTestId("requester-note");
  await expect(note).toContainText(forged);
  await expect(note).toContainText("Written by member@example.com, not checked by Toolgate");
  // Markup stays text, and the invisible right-to-left override is shown as its code point.
  await expect(note).toContainText("<b>approved by policy</b>⟨U+202E⟩");
  await expect(note.locator("b")).toHaveCount(0);
  await expect(detail.getByText(forged)).toHaveCount(1);
  await expect(detail.getByTestId("risk-cues")).not.toContainText(forged);

  // Cues computed from the command inside sh -c.
  const cues = detail.getByTestId("risk-cues");
  await expect(cues.locator('[data-risk="outside-workspace"]')).toContainText("~/.ssh/id_rsa");
  await memberCtx.close();
  await ownerCtx.close();
});
