// Pending requests written straight into the database (createMany), for tests and benchmarks that need thousands:
// the API would take minutes to register them one by one. Each row is what the gateway stores for an exec request,
// its risk cues included (computed as registration does), unless `riskKinds: null` asks for a row from before them.
import { randomUUID } from "node:crypto";
import type { Db } from "@/lib/db/client";
import { storedRiskKinds } from "@/lib/approvals/risk-view";
import { loadShellParser } from "@/lib/exec/shell-parser";

export type SeedRequest = {
  command?: string;
  toolName?: string;
  args?: Record<string, unknown>;
  requesterNote?: string;
  status?: "pending" | "approved" | "denied" | "expired";
  resolveReason?: string;
  createdAt?: Date;
  riskKinds?: string | null;
};

/** A chat session of `ownerId` to hang requests on. */
export async function seedSession(
  db: Db,
  { ownerId, title, agentId = null }: { ownerId: string; title: string; agentId?: string | null },
): Promise<string> {
  const s = await db.chatSession.create({ data: { ownerId, title, agentId } });
  return s.id;
}

/** Inserts the requests (newest last unless createdAt says otherwise); returns their ids in insertion order. */
export async function seedApprovals(
  db: Db,
  { sessionId, requesterId, requests }: { sessionId: string; requesterId: string; requests: SeedRequest[] },
): Promise<string[]> {
  await loadShellParser();
  const now = Date.now();
  const expiresAt = new Date(now + 24 * 3600_000);
  const rows = requests.map((r, i) => {
    const toolName = r.toolName ?? "exec";
    const args = r.args ?? { command: r.command ?? `echo ${i}` };
    const command = toolName === "exec" ? String(args.command ?? "") : null;
    return {
      id: `seed${randomUUID().replace(/-/g, "")}`,
      kind: toolName === "exec" ? "exec" : "tool",
      sessionId,
      requesterId,
      toolName,
      callId: randomUUID(),
      argsHash: "0".repeat(64),
      args: args as never,
      command,
      riskKinds: r.riskKinds === undefined ? storedRiskKinds({ toolName, args, command }) : r.riskKinds,
      reason: "seeded for a test",
      requesterNote: r.requesterNote ?? null,
      status: r.status ?? "pending",
      resolveReason: r.resolveReason ?? null,
      resolvedAt: r.status && r.status !== "pending" ? new Date(now) : null,
      createdAt: r.createdAt ?? new Date(now - requests.length + i),
      expiresAt,
    };
  });
  for (let i = 0; i < rows.length; i += 1_000) await db.approval.createMany({ data: rows.slice(i, i + 1_000) });
  return rows.map((r) => r.id);
}
