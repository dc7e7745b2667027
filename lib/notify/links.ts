// Links in what leaves Toolgate are built from PUBLIC_BASE_URL only: a request's Host header is the sender's to
// choose, and a link built from it could point an owner at anyone's server.
import { loadConfig } from "@/lib/config";

export function publicUrl(pathAndQuery: string): string | null {
  const base = loadConfig().PUBLIC_BASE_URL;
  if (!base) return null;
  return new URL(pathAndQuery, base.endsWith("/") ? base : `${base}/`).toString();
}

/** The inbox, opened at this request. */
export function inboxLink(approvalId: string): string | null {
  return publicUrl(`approvals?open=${encodeURIComponent(approvalId)}`);
}
