import "server-only";
// What an approval request looks like outside Toolgate (webhooks, e-mail, chat). Every text that came from the
// model or the member (arguments, command, reason, risk details) passes through the audit's redaction rules: the
// admin's patterns (exec settings `redact`) and secret-named keys, long strings cut (lib/exec/redact.ts).
import { findApproval } from "@/lib/db/approvals";
import { findUserEmails } from "@/lib/db/users";
import { loadPolicyDocument } from "@/lib/tools/policy-source";
import { compileRedactions, redactForAudit } from "@/lib/exec/redact";
import { riskCues } from "@/lib/approvals/risk-view";
import { inboxLink } from "./links";

export type OutsideApproval = {
  id: string;
  kind: string;
  status: string;
  toolName: string;
  args: unknown;
  command: string | null;
  reason: string;
  requester: { id: string; email: string | null };
  risks: Array<{ kind: string; label: string; detail: string }>;
  createdAt: string;
  expiresAt: string;
  argsHash: string;
  link: string | null;
};

export async function redactor(): Promise<(value: unknown) => unknown> {
  const patterns = compileRedactions((await loadPolicyDocument()).document.exec.redact);
  return (value) => redactForAudit(value, patterns);
}

export async function outsideApproval(approvalId: string): Promise<OutsideApproval | null> {
  const a = await findApproval({ id: approvalId });
  if (!a) return null;
  const redact = await redactor();
  const text = (v: string) => String(redact(v));
  const [emails, risks] = await Promise.all([findUserEmails({ userIds: [a.requesterId] }), riskCues([a])]);
  return {
    id: a.id,
    kind: a.kind,
    status: a.status,
    toolName: a.toolName,
    args: redact(a.args),
    command: a.command === null ? null : text(a.command),
    reason: text(a.reason),
    requester: { id: a.requesterId, email: emails.get(a.requesterId) ?? null },
    risks: (risks.get(a.id) ?? []).map((r) => ({ kind: r.kind, label: r.label, detail: text(r.detail) })),
    createdAt: a.createdAt.toISOString(),
    expiresAt: a.expiresAt.toISOString(),
    argsHash: a.argsHash,
    link: inboxLink(a.id),
  };
}
