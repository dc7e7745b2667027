import "server-only";
// Replays the last N recorded tool calls (audit action "tool.call") against a draft document, with each
// caller's current roles and teams, to show which past calls the draft would decide differently.
import { isToolMode, parsePolicyDocument, resolveEffectiveToolPolicy, type PolicyContext } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { listAuditEntries } from "@/lib/db/audit";
import { listUsersByIds } from "@/lib/db/users";
import { loadConfig } from "@/lib/config";
import { grantsById } from "./grant-emails";
import { replayCalls, type RecordedCall } from "./replay";

export async function replayDraft({
  document,
  limit,
  provider,
  model,
}: {
  document: unknown;
  limit: number;
  provider?: string;
  model?: string;
}) {
  const parsed = parsePolicyDocument(await grantsById(document));
  if (!parsed.ok) throw new AppError("VALIDATION_FAILED", "the draft is invalid", { issues: parsed.issues });
  const { entries } = await listAuditEntries({ filter: { action: "tool.call" }, limit });
  const users = new Map(
    (await listUsersByIds({ ids: [...new Set(entries.flatMap((e) => (e.actorId ? [e.actorId] : [])))] })).map((u) => [
      u.id,
      u,
    ]),
  );
  const calls: RecordedCall[] = entries.flatMap((e) => {
    if (!e.toolName) return [];
    const mode = (e.details as { mode?: unknown } | null)?.mode;
    return [
      {
        seq: e.seq,
        at: e.at.toISOString(),
        actorId: e.actorId,
        sessionId: e.sessionId,
        toolName: e.toolName,
        mode: isToolMode(mode) ? mode : "chat_safe",
        decision: e.decision,
        layer: e.layer,
        rule: e.rule,
      },
    ];
  });
  const tools = getToolRegistry().meta();
  // The provider is not recorded per call; the configured one is what those calls ran with.
  const providerName = provider ?? loadConfig().MODEL_PROVIDER;
  const rows = replayCalls(calls, (call) => {
    const user = call.actorId ? users.get(call.actorId) : undefined;
    const context: PolicyContext = {
      roles: user?.roles ?? [],
      senderIsOwner: user?.roles.includes("owner") === true,
      mode: call.mode,
      provider: providerName,
      ...(model ? { model } : {}),
      teamIds: user?.teamIds ?? [],
      ...(call.actorId ? { senderId: call.actorId } : {}),
    };
    return resolveEffectiveToolPolicy(context, { document: parsed.document, tools }).check(call.toolName);
  });
  return { calls: rows, differing: rows.filter((r) => r.differs).length };
}
