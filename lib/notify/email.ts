import "server-only";
// E-mail to owners over SMTP (SMTP_URL, nodemailer). The mail says what is asked, by whom, why, and the risk cues
// (all redacted as the audit is), and links to a confirmation page (never a link that decides by itself: mail
// scanners open links) with a token for this owner and this request (lib/notify/link-token.ts).
import nodemailer, { type Transporter } from "nodemailer";
import { loadConfig } from "@/lib/config";
import { getUserWithRoles } from "@/lib/db/users";
import type { Attempt } from "./http-post";
import { inboxLink, publicUrl } from "./links";
import { createLinkToken } from "./link-token";
import type { OutsideApproval } from "./payload";
import { processSlots } from "@/lib/process-singleton";

export function emailConfigured(): boolean {
  return Boolean(loadConfig().SMTP_URL);
}

const globalForMail = processSlots<{ toolgateMailer?: { url: string; transport: Transporter } }>();

function transport(url: string): Transporter {
  if (globalForMail.toolgateMailer?.url !== url)
    globalForMail.toolgateMailer = { url, transport: nodemailer.createTransport(url) };
  return globalForMail.toolgateMailer.transport;
}

const oneLine = (s: string, max: number) => {
  const flat = s.replace(/[\r\n\t]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The decision page for this request, with the approver's token when one can be made. */
export function decisionLink(
  approval: Pick<OutsideApproval, "id" | "argsHash" | "expiresAt">,
  userId: string,
): string | null {
  const token = createLinkToken({
    approvalId: approval.id,
    argsHash: approval.argsHash,
    userId,
    expiresAt: new Date(approval.expiresAt),
  });
  return publicUrl(`decide/${encodeURIComponent(approval.id)}${token ? `?token=${token}` : ""}`);
}

export function composeMail(approval: OutsideApproval, link: string | null) {
  const what = approval.command ?? JSON.stringify(approval.args);
  const who = approval.requester.email ?? "a member";
  const subject = oneLine(
    `Approval needed: ${approval.toolName} ${approval.command ? oneLine(approval.command, 60) : ""} (from ${who})`,
    140,
  );
  const expires = new Date(approval.expiresAt).toUTCString();
  const risks = approval.risks.map((r) => `${r.label}: ${r.detail}`);
  const inbox = inboxLink(approval.id);
  const text = [
    `${who} asks to run ${approval.toolName}:`,
    "",
    `  ${what.slice(0, 4_000)}`,
    "",
    `Why: ${approval.reason}`,
    ...(risks.length ? ["", "Risk:", ...risks.map((r) => `  - ${r}`)] : []),
    "",
    `The request expires at ${expires}.`,
    "",
    ...(link ? [`Review and decide: ${link}`, "(Opening the link decides nothing: you confirm on the page.)"] : []),
    ...(inbox ? [`Open in the inbox: ${inbox}`] : []),
  ].join("\n");
  const html = `<!doctype html><html><body style="font-family:sans-serif">
<p><strong>${escapeHtml(who)}</strong> asks to run <strong>${escapeHtml(approval.toolName)}</strong>:</p>
<pre style="white-space:pre-wrap;background:#f1f5f9;padding:8px">${escapeHtml(what.slice(0, 4_000))}</pre>
<p>Why: ${escapeHtml(approval.reason)}</p>
${risks.length ? `<p>Risk:</p><ul>${risks.map((r) => `<li>${escapeHtml(r)}</li>`).join("")}</ul>` : ""}
<p>The request expires at ${escapeHtml(expires)}.</p>
${link ? `<p><a href="${escapeHtml(link)}">Review and decide</a> (opening the link decides nothing: you confirm on the page)</p>` : ""}
${inbox ? `<p><a href="${escapeHtml(inbox)}">Open in the inbox</a></p>` : ""}
</body></html>`;
  return { subject, text, html };
}

export async function sendEmail({ userId, approval }: { userId: string; approval: OutsideApproval }): Promise<Attempt> {
  const { SMTP_URL: url, SMTP_FROM: from } = loadConfig();
  if (!url) return { ok: false, retry: false, status: null, error: "SMTP_URL no longer configured" };
  const owner = await getUserWithRoles({ userId });
  if (!owner || !owner.roles.includes("owner"))
    return { ok: false, retry: false, status: null, error: "no longer an owner" };
  const mail = composeMail(approval, decisionLink(approval, owner.id));
  try {
    await transport(url).sendMail({ from, to: owner.email, ...mail, headers: { "X-Toolgate-Approval": approval.id } });
    return { ok: true, status: 250 };
  } catch (error) {
    const code = (error as { responseCode?: number }).responseCode;
    // A permanent SMTP refusal (5xx: no such mailbox) stops; a temporary one (4xx) or no connection retries.
    return {
      ok: false,
      retry: !(code && code >= 500),
      status: code ?? null,
      error: code ? `SMTP ${code}` : `no answer (${(error as { code?: string }).code ?? "error"})`,
    };
  }
}
