import "server-only";
// Domain approvals (issue 28, network by domain): what a sandboxed command's egress proxy knows of one member.
// Their grants (their own, their teams', their agent's, everyone's; not expired), the allow-once approvals their
// next command claims, and the approvals an unlisted domain becomes. Each request spends the member's approval
// budget (APPROVAL_REQUESTS_PER_MINUTE, shared with POST /api/approvals), and a command asks for at most
// exec.network.maxRequestsPerCommand domains, so one command trying forty hosts cannot make forty owner requests.
import { loadConfig, parseEgressHosts } from "@/lib/config";
import { listActiveGrants, recordGrantUse } from "@/lib/db/allowlist";
import { claimAllowOnceDomains, findPendingDomainApproval } from "@/lib/db/approvals";
import { consumeUserQuota } from "@/lib/auth/throttle";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { AskedDomain, NetworkSettings } from "@/lib/policy/egress";
import type { EgressServices } from "@/lib/tools/context";
import { requestApproval } from "./service";

export function createEgressServices({
  userId,
  teamIds,
  agentId,
  sessionId,
  runId,
  settings,
}: {
  userId: string;
  teamIds: readonly string[];
  agentId: string | null;
  sessionId: string;
  runId: string | null;
  settings: NetworkSettings;
}): EgressServices {
  return {
    settings,
    hosts: parseEgressHosts(loadConfig().EGRESS_HOSTS) ?? new Map(),
    grantsForCommand: async () => {
      const [grants, once] = await Promise.all([
        listActiveGrants({ userId, teamIds, agentId }),
        claimAllowOnceDomains({ requesterId: userId }),
      ]);
      const domain = grants.filter((g) => g.kind === "domain");
      await recordGrantUse({ ids: domain.map((g) => g.id) });
      return { patterns: [...domain.map((g) => g.pattern), ...once] };
    },
    requestDomainApprovals: async ({ callId, asked }) => {
      const answers: Array<{ domain: string; approvalId: string | null; note?: string }> = [];
      for (const [index, domain] of asked.entries()) {
        if (index >= settings.maxRequestsPerCommand) {
          answers.push({
            domain: domain.pattern,
            approvalId: null,
            note: `not asked: one command asks for at most ${settings.maxRequestsPerCommand} domains`,
          });
          continue;
        }
        answers.push(await requestOne({ userId, sessionId, runId, callId, domain }));
      }
      return answers;
    },
  };
}

async function requestOne({
  userId,
  sessionId,
  runId,
  callId,
  domain,
}: {
  userId: string;
  sessionId: string;
  runId: string | null;
  callId: string;
  domain: AskedDomain;
}) {
  // Already asked (by an earlier command) and not yet decided: the owner sees it once.
  const pending = await findPendingDomainApproval({ requesterId: userId, pattern: domain.pattern });
  if (pending) return { domain: domain.pattern, approvalId: pending.id, note: "already asked; waiting for an owner" };
  try {
    await consumeUserQuota("approvals", userId);
  } catch (error) {
    if (error instanceof AppError && error.code === "RATE_LIMITED")
      return {
        domain: domain.pattern,
        approvalId: null,
        note: "not asked: too many approval requests; try again later",
      };
    throw error;
  }
  try {
    const { approval } = await requestApproval({
      kind: "domain",
      sessionId,
      runId,
      requesterId: userId,
      toolName: "exec",
      // One request per command and domain: the same call asking again finds its own row.
      callId: `${callId}#egress:${domain.pattern}`.slice(0, 300),
      args: { domain: domain.host, port: domain.port, method: domain.method },
      command: domain.pattern,
      reason: `network: a command in the sandbox tried to reach ${domain.pattern} (${domain.method === "CONNECT" ? "HTTPS" : `plain HTTP ${domain.method}`}), which is not on the network allowlist`,
    });
    return { domain: domain.pattern, approvalId: approval.id };
  } catch (error) {
    log("warn", "domain_approval_failed", { sessionId, domain: domain.pattern, error: String(error) });
    return { domain: domain.pattern, approvalId: null, note: "not asked: the request could not be stored" };
  }
}
