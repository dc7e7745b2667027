import "server-only";
// Approvals: risky calls wait for an owner's decision. The request is registered (and audited) before
// anyone is told about it; decisions are exactly-once conditional updates; every request, decision, expiry
// and allowlist change is audited and published as an event.
import { AppError } from "@/lib/errors";
import { loadConfig } from "@/lib/config";
import { insertAuditRow, insertAuditRows, type AuditEntry } from "@/lib/db/audit";
import { transact, type Tx } from "@/lib/db/client";
import { insertEvent, type NewEvent } from "@/lib/db/events";
import { markCallDecided } from "@/lib/db/tool-calls";
import {
  expireApprovalRow,
  findApproval,
  findApprovalByCall,
  listDueApprovals,
  registerApproval,
  resolveApprovalRow,
  type ApprovalDecision,
  type NewApproval,
} from "@/lib/db/approvals";
import { eventsCommitted, subscribeEvents } from "@/lib/events/bus";
import { enqueueNotificationsInTx } from "@/lib/notify/outbox";
import type { GrantChoice } from "./grant-choice";
import { prepareGrants, storeGrantsInTx } from "./grants";
import { hashArguments } from "./rules";
import { assertApprovalPayloadWithinCap, assertMayDecide, assertSameCallArguments } from "./limits";
import { countApprovalSettled } from "@/lib/ops/metrics";
import { assertRoutedApprover, routeRequestInTx } from "./routing";
import { voteInTx } from "./quorum";
import { storedRiskKinds } from "./risk-view";
import { loadShellParser } from "@/lib/exec/shell-parser";

export type ApprovalView = NonNullable<Awaited<ReturnType<typeof findApproval>>>;

/** Why an approval asked for through POST /api/approvals needs an owner, in Toolgate's words. */
export const API_REQUEST_REASON = "asked for directly through the API (no policy decision asked for it)";

function summary(a: ApprovalView) {
  return {
    id: a.id,
    kind: a.kind,
    sessionId: a.sessionId,
    runId: a.runId,
    requesterId: a.requesterId,
    toolName: a.toolName,
    callId: a.callId,
    command: a.command,
    status: a.status,
    decision: a.decision,
    reason: a.reason,
    requesterNote: a.requesterNote,
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
    resolvedAt: a.resolvedAt,
    resolvedById: a.resolvedById,
    resolvedVia: a.resolvedVia,
  };
}

type ApprovalRequest = Omit<NewApproval, "argsHash" | "expiresAt"> & { ttlMs?: number };

/**
 * Registers a request inside the caller's transaction. The audit row and the event are returned, not
 * written: the caller writes them last in its transaction (the audit lock must be the last lock taken).
 */
export async function registerApprovalInTx(
  tx: Tx,
  input: ApprovalRequest,
): Promise<{ approval: ApprovalView; created: boolean; audit: AuditEntry[]; events: NewEvent[] }> {
  const { ttlMs: _ttl, ...row } = input;
  assertApprovalPayloadWithinCap(input.args, input.command, `${input.reason}${input.requesterNote ?? ""}`);
  const argsHash = hashArguments(input.toolName, input.args);
  const now = new Date();
  // A routing rule that matches names the approvers and may set its own expiry (issue 31).
  const routed = await routeRequestInTx(tx, input, now);
  const ttlMs = routed?.ttlMs ?? input.ttlMs ?? loadConfig().APPROVAL_TTL_SECONDS * 1000;
  // Its risk cues are stored with it (issue 33: the inbox filters by them), from the same analysis the inbox shows.
  await loadShellParser();
  const riskKinds = storedRiskKinds(input);
  const expiresAt = new Date(now.getTime() + ttlMs);
  const { approval, created } = await registerApproval(
    { ...row, argsHash, expiresAt, routing: routed?.routing ?? null, riskKinds },
    tx,
  );
  // The same call id with other arguments is a conflict, never silently the first request.
  if (!created) assertSameCallArguments(approval, argsHash);
  if (!created) return { approval, created, audit: [], events: [] };
  // Its notifications (webhook, e-mail, chat) commit with it: lib/notify sends them after the commit.
  await enqueueNotificationsInTx(tx, approval);
  return {
    approval,
    created,
    audit: [
      {
        action: "approval.requested",
        actorId: input.requesterId,
        sessionId: input.sessionId,
        toolName: input.toolName,
        callId: input.callId,
        decision: "ask",
        details: {
          approvalId: approval.id,
          reason: input.reason,
          requesterNote: input.requesterNote ?? null,
          command: input.command ?? null,
        },
      },
    ],
    events: [
      { type: "approval.requested", scope: "approvals", sessionId: input.sessionId, payload: summary(approval) },
    ],
  };
}

/** Request, audit row and event commit together; the event fans out after commit. */
export async function requestApproval(input: ApprovalRequest) {
  let result: { approval: ApprovalView; created: boolean };
  try {
    result = await transact(async (tx) => {
      const r = await registerApprovalInTx(tx, input);
      for (const event of r.events) await insertEvent({ ...event, tx });
      await insertAuditRows(tx, r.audit);
      return r;
    });
  } catch (error) {
    // A concurrent registration of the same call won the unique key (this transaction rolled back): that one stands.
    const existing =
      (error as { code?: string }).code === "P2002"
        ? await findApprovalByCall({ sessionId: input.sessionId, callId: input.callId })
        : null;
    if (!existing) throw error;
    assertSameCallArguments(existing, hashArguments(input.toolName, input.args));
    return { approval: existing, created: false };
  }
  if (result.created) await eventsCommitted();
  return { approval: result.approval, created: result.created };
}

/** Where a decision came from, recorded with it (the row, its event and its audit row). */
export type DecisionChannel = "inbox" | "email" | "slack";

/** `quorum` is set while a critical request still waits for another owner's allow ("1 of 2"). */
export type DecisionOutcome = {
  approval: ApprovalView;
  allowlisted: string[];
  refused: string[];
  quorum?: { given: number; needed: number };
};

/**
 * Resolves a pending approval; throws CONFLICT when it was already decided or has expired. The decision, the
 * call's card state, the audit row and the event commit together. Resuming the run is not this module's
 * business: lib/runs listens for approval.resolved (on every instance) and continues the run.
 */
export async function decideApproval({
  approvalId,
  ownerId,
  decision,
  reason,
  grant = { scope: "user" },
  via = "inbox",
}: {
  approvalId: string;
  ownerId: string;
  decision: ApprovalDecision;
  reason?: string;
  grant?: GrantChoice;
  via?: DecisionChannel;
}): Promise<DecisionOutcome> {
  const before = await findApproval({ id: approvalId });
  if (!before) throw new AppError("NOT_FOUND", "no such approval");
  assertMayDecide(before, ownerId);
  assertRoutedApprover(before, ownerId);
  // A scope that does not fit is refused before anything is decided; what will be stored is worked out here.
  const prepared = decision === "allow-always" ? await prepareGrants(before, grant) : null;
  const now = new Date();
  // The decision, the grants it stores, the call's card state, the event and the audit rows commit together:
  // an "allow always" can never be decided without its grant, nor a grant stored without its decision.
  const decided = await transact(async (tx): Promise<DecisionOutcome | null> => {
    // A critical request needs allows from two different owners: an allow short of that is recorded and it waits.
    if (before.quorum > 1 && decision !== "deny") {
      const vote = await voteInTx(tx, { approval: before, ownerId, decision, via, now });
      if (vote === null) return null;
      if (vote.given < vote.needed) {
        const row = { ...before, allowCount: vote.given };
        await insertEvent({
          tx,
          type: "approval.voted",
          scope: "approvals",
          sessionId: row.sessionId,
          payload: { ...summary(row), quorum: vote },
        });
        await insertAuditRow(tx, {
          action: "approval.voted",
          actorId: ownerId,
          sessionId: row.sessionId,
          toolName: row.toolName,
          callId: row.callId,
          decision,
          details: { approvalId, via, given: vote.given, needed: vote.needed },
        });
        return { approval: row, allowlisted: [], refused: [], quorum: vote };
      }
    }
    const won = await resolveApprovalRow({ id: approvalId, decision, resolvedById: ownerId, reason, via, now, tx });
    if (!won) return null;
    const row = { ...before, ...won };
    await markCallDecided({ tx, approvalId, approved: decision !== "deny", decidedBy: ownerId, at: now });
    const grants = prepared
      ? await storeGrantsInTx(tx, { approval: row, ownerId, prepared })
      : { allowlisted: [], refused: [], audit: [] };
    await insertEvent({
      tx,
      type: "approval.resolved",
      scope: "approvals",
      sessionId: row.sessionId,
      payload: { ...summary(row), allowlisted: grants.allowlisted, refused: grants.refused },
    });
    await insertAuditRows(tx, [
      {
        action: "approval.resolved",
        actorId: ownerId,
        sessionId: row.sessionId,
        toolName: row.toolName,
        callId: row.callId,
        decision,
        details: { approvalId, reason: reason ?? null, via },
      },
      ...grants.audit,
    ]);
    return { approval: row, allowlisted: grants.allowlisted, refused: grants.refused };
  });
  if (!decided) {
    const now = await findApproval({ id: approvalId });
    throw new AppError(
      "CONFLICT",
      `this approval is already ${now?.status === "pending" ? "expired" : (now?.status ?? "gone")}`,
      { status: now?.status },
    );
  }
  await eventsCommitted();
  if (!decided.quorum) countApprovalSettled(decision === "deny" ? "denied" : "approved", before.createdAt, now);
  return decided;
}

/** Marks due approvals expired (each with its audit row and event, in one transaction); returns them. */
export async function sweepExpiredApprovals(): Promise<ApprovalView[]> {
  const expired: ApprovalView[] = [];
  for (const { id } of await listDueApprovals()) {
    const approval = await transact(async (tx) => {
      if (!(await expireApprovalRow({ tx, id }))) return null;
      const row = (await findApproval({ id, tx }))!;
      await insertEvent({
        tx,
        type: "approval.expired",
        scope: "approvals",
        sessionId: row.sessionId,
        payload: summary(row),
      });
      await insertAuditRow(tx, {
        action: "approval.expired",
        sessionId: row.sessionId,
        toolName: row.toolName,
        callId: row.callId,
        decision: "expired",
        details: { approvalId: row.id },
      });
      return row;
    });
    if (approval) {
      expired.push(approval);
      countApprovalSettled("expired");
    }
  }
  if (expired.length) await eventsCommitted();
  return expired;
}

/** Long-poll: the decision if there is one (also after it was made), null when the wait times out. */
export async function waitForDecision({ approvalId, timeoutMs }: { approvalId: string; timeoutMs: number }) {
  const check = async () => {
    const a = await findApproval({ id: approvalId });
    if (!a) throw new AppError("NOT_FOUND", "no such approval");
    if (a.status === "pending" && a.expiresAt > new Date()) return null;
    // Past its expiry but not swept yet: it can no longer be decided, so it is expired already.
    return { status: a.status === "pending" ? "expired" : a.status, decision: a.decision, resolvedAt: a.resolvedAt };
  };
  const first = await check();
  if (first) return first;
  return new Promise<Awaited<ReturnType<typeof check>>>((resolve, reject) => {
    let unsubscribe: (() => void) | null = null;
    let settled = false;
    const finish = (value: Awaited<ReturnType<typeof check>>, error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe?.();
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    subscribeEvents((event) => {
      const payload = event.payload as { id?: string };
      if (payload?.id === approvalId)
        check().then(
          (v) => v && finish(v),
          (e) => finish(null, e),
        );
    }).then(
      (u) => {
        unsubscribe = u;
        if (settled) u();
        // A decision between the first check and the subscription would otherwise be missed.
        else
          check().then(
            (v) => v && finish(v),
            (e) => finish(null, e),
          );
      },
      (e) => finish(null, e),
    );
  });
}
