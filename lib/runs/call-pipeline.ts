import "server-only";
// The call pipeline as a service: gate → claim → approval wait → run → record, for any client. The stages are
// lib/runs/calls.ts (handleCall: the gate, the claim and the run, or the denial, or the approval request; settleCall:
// the same call once its approval is decided), each outcome one transaction of the run store (store.ts). Two
// clients:
// - the chat run loop (engine.ts): calls of a model step, in the session's one active run; a call that needs an
//   owner pauses the run, and resume.ts continues it once decided, on any instance;
// - an outside client with no chat run loop (an MCP endpoint for outside agents): callTool below. Its calls are
//   recorded in one session per (owner, client) — ChatSession.clientKey — so the unique (session, call id), the
//   approval's session, the inbox's context, the events and the audit's session filter all hold as for a chat. Each
//   call is a run of its own beside the others (no claim on the session: one client's calls may overlap), leased by
//   this instance while it goes through the pipeline (Stop and the lease sweep work as for a chat's run). A call
//   that needs an owner waits here, in the request, up to `approvalWaitMs`; decided in time it runs (once) or is
//   denied; not decided, it answers pending and its run ends: nothing runs later in the background.
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { AppError } from "@/lib/errors";
import { findApproval } from "@/lib/db/approvals";
import { upsertClientSession } from "@/lib/db/sessions";
import { findRepeatedCall } from "@/lib/db/tool-calls";
import { hashArguments } from "@/lib/approvals/rules";
import { subscribeEvents } from "@/lib/events/bus";
import { annotateSpan, inSpan } from "@/lib/ops/tracing";
import { handleCall, settleCall, type CallOutcome, type SettledApproval } from "./calls";
import { holdRun, INSTANCE_ID, leaseMs } from "./lease";
import { recordOutcome } from "./recorder";
import { runStore } from "./store";
import type { StoredToolCall } from "./transcript";
import { prepareTurn, type Turn, type TurnUser } from "./turn-setup";

/** The provider an outside client's calls are decided as (policy context and audit rows): there is no model here. */
export const EXTERNAL_PROVIDER = "external";

export type ExternalClient = {
  /** Stable key of the client for this owner: its token or OAuth client ("token:<id>", "oauth:<client id>"). */
  key: string;
  /** Shown in the inbox and the session title. */
  name: string;
  /** The mode and agent the client is bound to (read fail-closed against the owner's grants, as a chat's). */
  mode: string;
  agentId?: string | null;
};

export type ExternalCallResult = CallOutcome & {
  sessionId: string;
  runId: string;
  callId: string;
  approvalId?: string;
};

/** A model that is never called: an outside client's call has no model, but the turn's context names one. */
function noModel(client: ExternalClient): LanguageModelV3 {
  const refuse = () => Promise.reject(new Error("an outside client's call has no model"));
  return {
    specificationVersion: "v3",
    provider: EXTERNAL_PROVIDER,
    modelId: client.name,
    supportedUrls: {},
    doGenerate: refuse,
    doStream: refuse,
  };
}

/**
 * The approval's decision, once made (approved, denied or expired), or null when `waitMs` passed or `signal` aborted
 * first. Woken by the approval's events (from any instance); read again every second for a wake that was missed.
 */
async function waitForDecision(
  approvalId: string,
  waitMs: number,
  signal: AbortSignal,
): Promise<SettledApproval | null> {
  let wake = () => undefined as void;
  const unsubscribe = await subscribeEvents((event) => {
    if (
      (event.type === "approval.resolved" || event.type === "approval.expired") &&
      (event.payload as { id?: string } | null)?.id === approvalId
    )
      wake();
  });
  const onAbort = () => wake();
  signal.addEventListener("abort", onAbort);
  const deadline = Date.now() + waitMs;
  try {
    for (;;) {
      const approval = await findApproval({ id: approvalId });
      if (approval && approval.status !== "pending") return approval;
      const left = deadline - Date.now();
      if (left <= 0 || signal.aborted) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1_000));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    unsubscribe();
  }
}

/**
 * One call of an outside client, through the whole pipeline, recorded in the client's session for `user`: the gate
 * (the policy in force, the client's mode and agent), the claim, an owner's approval waited for up to
 * `approvalWaitMs`, the run, the result; audited and told as a chat's calls are.
 */
export function callTool(args: CallToolArgs): Promise<ExternalCallResult> {
  // One trace per outside call, a root of its own (the request may run inside another's context): the gate, the
  // approval wait, the run and the records are its spans, as a chat turn's are under toolgate.turn.
  return inSpan(
    "toolgate.mcp_call",
    { "toolgate.client": args.client.name, "toolgate.tool": args.call.toolName },
    async () => {
      const result = await callToolNow(args);
      annotateSpan({ "toolgate.outcome": result.status });
      return result;
    },
    { root: true },
  );
}

type CallToolArgs = {
  user: TurnUser;
  client: ExternalClient;
  call: StoredToolCall;
  /**
   * The same call made again (same tool, same arguments) while an earlier one waits for, or got, its approval
   * settles that earlier call instead of asking again (its conditional move lets one of several identical calls
   * run, once): the gateway's rule for a client that retries.
   */
  settlesRepeat?: boolean;
  workspaceRoot: string;
  approvalWaitMs: number;
  abortSignal?: AbortSignal;
};

async function callToolNow({
  user,
  client,
  call: asked,
  settlesRepeat,
  workspaceRoot,
  approvalWaitMs,
  abortSignal,
}: CallToolArgs): Promise<ExternalCallResult> {
  const session = await upsertClientSession({
    ownerId: user.id,
    clientKey: client.key,
    title: client.name,
    mode: client.mode,
    agentId: client.agentId ?? null,
  });
  const resume = settlesRepeat
    ? await findRepeatedCall({
        sessionId: session.id,
        toolName: asked.toolName,
        argsHash: hashArguments(asked.toolName, asked.input ?? null),
      })
    : null;
  const call = resume ? { ...asked, toolCallId: resume.callId } : asked;
  const begun = await runStore().begin({ sessionId: session.id, owner: INSTANCE_ID, leaseMs: leaseMs(), shared: true });
  if (!begun.ok) throw new AppError("CONFLICT", "the call could not start");
  const ids = { sessionId: session.id, runId: begun.runId };
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  abortSignal?.addEventListener("abort", onAbort, { once: true });
  if (abortSignal?.aborted) controller.abort();
  const release = holdRun(ids.runId, controller);
  try {
    const env = {
      user,
      model: { model: noModel(client), info: { provider: EXTERNAL_PROVIDER, model: client.name } },
      emit: () => undefined,
      workspaceRoot,
      abortSignal: controller.signal,
      sharedRun: true,
    };
    const turn = await prepareTurn(env, session.id, ids.runId, session);
    let outcome: CallOutcome = resume
      ? { status: "pending", output: { approvalId: resume.approvalId } }
      : await handleCall(turn, call, 0);
    let approvalId: string | undefined;
    if (outcome.status === "pending") {
      approvalId = (outcome.output as { approvalId?: string }).approvalId;
      const decided = approvalId ? await waitForDecision(approvalId, approvalWaitMs, controller.signal) : null;
      if (decided) outcome = await settleCall(turn, call, decided);
    }
    // A call that ran ended its run with its result (calls.ts); any other outcome leaves it to end here.
    const to = controller.signal.aborted ? "aborted" : "completed";
    if (!turn.ended) await recordOutcome({ ...ids, run: { from: ["running"], to, owner: INSTANCE_ID }, shared: true });
    return { ...outcome, ...ids, callId: call.toolCallId, ...(approvalId ? { approvalId } : {}) };
  } catch (error) {
    await recordOutcome({
      ...ids,
      run: { from: ["running"], to: "failed", error: String(error), owner: INSTANCE_ID, required: false },
      shared: true,
    }).catch(() => undefined);
    throw error;
  } finally {
    release();
    abortSignal?.removeEventListener("abort", onAbort);
  }
}

/** A tool as an outside client sees it (MCP's tools/list entry). */
export type ClientTool = { name: string; description?: string; inputSchema: Record<string, unknown> };

/**
 * The exposure gate for an outside client: exactly the tools the policy in force gives its context (user, mode
 * read fail-closed against the user's grants, agent), the same list a chat's prompt would carry. No policy, no tools.
 */
export async function listClientTools({
  user,
  client,
  workspaceRoot,
}: {
  user: TurnUser;
  client: ExternalClient;
  workspaceRoot: string;
}): Promise<ClientTool[]> {
  const turn = await clientTurn({ user, client, workspaceRoot }, "tools-list");
  if (!turn.policy) return [];
  return turn.registry.getToolsSchemaFor(turn.policy).map(({ function: f }) => {
    // A plugin tool keeps its server's own schema ($schema, $defs and all): outside clients are not model providers.
    const declared = (turn.registry.get(f.name) as { serverInputSchema?: Record<string, unknown> } | undefined)
      ?.serverInputSchema;
    return {
      name: f.name,
      ...(f.description ? { description: f.description } : {}),
      inputSchema: declared ?? (f.parameters as Record<string, unknown>),
    };
  });
}

/**
 * The policy in force for an outside client's context (null when it cannot be read: fail closed) and the registry
 * its MCP servers are supervised in: what the gateway's resources and prompts are decided by.
 */
export async function resolveClientPolicy(args: {
  user: TurnUser;
  client: ExternalClient;
  workspaceRoot: string;
}): Promise<Pick<Turn, "policy" | "registry">> {
  const { policy, registry } = await clientTurn(args, "upstream-list");
  return { policy, registry };
}

/** The client's session (made on first use) and the turn context it resolves to; no run is begun (`runId` only names the request). */
async function clientTurn(
  { user, client, workspaceRoot }: { user: TurnUser; client: ExternalClient; workspaceRoot: string },
  runId: string,
): Promise<Turn> {
  const session = await upsertClientSession({
    ownerId: user.id,
    clientKey: client.key,
    title: client.name,
    mode: client.mode,
    agentId: client.agentId ?? null,
  });
  const env = {
    user,
    model: { model: noModel(client), info: { provider: EXTERNAL_PROVIDER, model: client.name } },
    emit: () => undefined,
    workspaceRoot,
  };
  return prepareTurn(env, session.id, runId, session);
}
