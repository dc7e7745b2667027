import "server-only";
// Escalation (issue 31): a routed request nobody decided within its rule's minutes is opened to the rule's
// escalation target. Who may decide follows the clock (lib/approvals/routing.ts), so a stalled worker never keeps
// the target out; this sweep only tells them (mail, an event for open inboxes, an audit row), once, on whichever
// instance marks the row first.
import { insertAuditRow } from "@/lib/db/audit";
import { transact } from "@/lib/db/client";
import { insertEvent } from "@/lib/db/events";
import { findApproval, listDueEscalations, markEscalated } from "@/lib/db/approvals";
import { eventsCommitted } from "@/lib/events/bus";
import { enqueueEscalationInTx } from "@/lib/notify/outbox";

export async function sweepDueEscalations(now = new Date()): Promise<number> {
  let escalated = 0;
  for (const { id } of await listDueEscalations({ now })) {
    const done = await transact(async (tx) => {
      if (!(await markEscalated({ tx, id, now }))) return false;
      const row = (await findApproval({ id, tx }))!;
      await enqueueEscalationInTx(tx, row);
      await insertEvent({
        tx,
        type: "approval.escalated",
        scope: "approvals",
        sessionId: row.sessionId,
        payload: { id: row.id, routeRule: row.routeRule, escalatedAt: now },
      });
      await insertAuditRow(tx, {
        action: "approval.escalated",
        sessionId: row.sessionId,
        toolName: row.toolName,
        callId: row.callId,
        details: { approvalId: row.id, routeRule: row.routeRule },
      });
      return true;
    });
    if (done) escalated++;
  }
  if (escalated) await eventsCommitted();
  return escalated;
}
