import "server-only";
// A model provider that refuses the server's own credentials (a wrong, revoked or expired API key) is the operator's
// problem, not the member's: the member is told so in plain words (never the key, never the provider's body), and
// the refusal is audited so admins see it on the admin home page (lib/ops/model-health.ts).
import { APICallError } from "ai";
import { appendAudit } from "@/lib/db/audit";
import { log } from "@/lib/log";

import { CREDENTIALS_REFUSED_ACTION } from "@/lib/ops/model-health";

/** The HTTP status when the provider answered 401 or 403 to the server's own call, else null. */
export function refusedCredentialsStatus(error: unknown): number | null {
  // Walks `cause` a few levels: the SDK or a wrapper may put the provider's answer underneath.
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    if (APICallError.isInstance(current))
      return current.statusCode === 401 || current.statusCode === 403 ? current.statusCode : null;
    current = current instanceof Error ? current.cause : undefined;
  }
  return null;
}

/** What the member reads: which provider, and that an admin must act; nothing the provider sent. */
export function refusedCredentialsMessage(provider: string): string {
  return `the model provider (${provider}) refused this server's credentials, so no model could answer; this is not something you can fix: an admin has been told`;
}

/** Audited (and logged) for the admins; a failure to audit is logged, never thrown over the turn's own failure. */
export async function noteRefusedCredentials({
  provider,
  model,
  status,
  userId,
  sessionId,
  runId,
}: {
  provider: string;
  model?: string;
  status: number;
  userId: string;
  sessionId: string;
  runId: string;
}): Promise<void> {
  log("error", "model_credentials_refused", { provider, model, status, sessionId, runId });
  await appendAudit({
    action: CREDENTIALS_REFUSED_ACTION,
    actorId: userId,
    sessionId,
    decision: "failed",
    details: { provider, model: model ?? null, status, runId },
  }).catch((error: unknown) =>
    log("error", "audit_failed", {
      action: CREDENTIALS_REFUSED_ACTION,
      error: error instanceof Error ? error.message : String(error),
    }),
  );
}
