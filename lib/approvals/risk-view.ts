import "server-only";
// Risk cues for the approvals an owner reads (lib/exec/risk.ts), computed from each request's command (never from
// the requester's note), with the requester's history for "first use": the executables of their earlier approved
// exec requests. One history query per requester in a list.
import type { ShellAnalysis } from "@/lib/policy";
import { listApprovedExecAnalyses } from "@/lib/db/approvals";
import { assessRisk, executablesOf, executablesOfCommand, type RiskCue } from "@/lib/exec/risk";
import { encodeRiskKinds } from "@/lib/exec/risk-kinds";
import { loadShellParser } from "@/lib/exec/shell-parser";

type Request = {
  id: string;
  kind?: string;
  requesterId: string;
  toolName: string;
  args: unknown;
  command: string | null;
  analysis: unknown;
  createdAt: Date;
};

function asAnalysis(value: unknown): ShellAnalysis | null {
  if (typeof value !== "object" || value === null || !Array.isArray((value as { segments?: unknown }).segments))
    return null;
  return value as ShellAnalysis;
}

/** Cues per approval id. */
export async function riskCues(requests: Request[]): Promise<Map<string, RiskCue[]>> {
  await loadShellParser();
  const requesters = [
    ...new Set(requests.filter((r) => r.command !== null || asAnalysis(r.analysis)).map((r) => r.requesterId)),
  ];
  const histories = new Map(
    await Promise.all(requesters.map(async (id) => [id, await listApprovedExecAnalyses({ requesterId: id })] as const)),
  );
  const out = new Map<string, RiskCue[]>();
  for (const r of requests) {
    // A domain approval's command is a host name, not a shell command: the card's reason says what it is.
    if (r.kind === "domain") {
      out.set(r.id, []);
      continue;
    }
    const analysis = asAnalysis(r.analysis);
    const history = histories.get(r.requesterId);
    // Only what ran before this request counts as known, so an old request keeps the cue it had.
    const known = history
      ? new Set(
          history
            .filter((h) => h.id !== r.id && h.createdAt < r.createdAt)
            .flatMap((h) =>
              h.command !== null ? executablesOfCommand(h.command) : executablesOf(asAnalysis(h.analysis)),
            ),
        )
      : null;
    out.set(
      r.id,
      assessRisk({ toolName: r.toolName, args: r.args, command: r.command, analysis, knownExecutables: known }),
    );
  }
  return out;
}

type StoredRequest = { kind?: string; toolName: string; args: unknown; command?: string | null; analysis?: unknown };

/**
 * The stored form of the cues a request carries by itself (Approval.riskKinds): the same analysis the inbox shows,
 * without the requester's history (no "first use"). The caller has loaded the shell parser (loadShellParser).
 */
export function storedRiskKinds(r: StoredRequest): string {
  if (r.kind === "domain") return "";
  const cues = assessRisk({
    toolName: r.toolName,
    args: r.args,
    command: r.command ?? null,
    analysis: asAnalysis(r.analysis),
    knownExecutables: null,
  });
  return encodeRiskKinds(cues.map((c) => c.kind));
}
