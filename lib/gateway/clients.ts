import "server-only";
// The admin's view of the gateway's outside clients (/admin/mcp): each personal token or OAuth grant that has used
// /mcp, whose it is, when it was last seen and its latest calls. Read from the client sessions the gateway keeps
// (one per owner and token or grant, ChatSession.clientKey: lib/runs/call-pipeline.ts), whose updatedAt moves on
// every request that resolves the client's context (tools, resources, prompts, calls).
import { z } from "zod";
import { findAccessTokensByIds } from "@/lib/db/access-tokens";
import { findOAuthGrantsByIds } from "@/lib/db/oauth";
import { listClientSessions } from "@/lib/db/sessions";
import { listRecentToolCalls } from "@/lib/db/tool-calls";

/** Clients shown, most recently seen first, and calls shown per client. */
const MAX_CLIENTS = 100;
const CALLS_PER_CLIENT = 5;

export const ConnectedClientSchema = z.object({
  key: z.string(),
  kind: z.enum(["token", "oauth"]),
  /** The token's name, or the OAuth client's registered name. */
  name: z.string(),
  /** The token's visible prefix, or the OAuth client id. */
  label: z.string(),
  status: z.enum(["active", "revoked", "expired"]),
  user: z.object({ id: z.string(), email: z.string().nullable() }),
  mode: z.string(),
  agentId: z.string().nullable(),
  lastSeenAt: z.string(),
  recentCalls: z.array(
    z.object({ toolName: z.string(), status: z.string(), approvalId: z.string().nullable(), at: z.string() }),
  ),
});
export type ConnectedClient = z.infer<typeof ConnectedClientSchema>;

const idOf = (key: string, kind: "token" | "oauth") => (key.startsWith(`${kind}:`) ? key.slice(kind.length + 1) : null);

export async function listConnectedClients(now = new Date()): Promise<ConnectedClient[]> {
  const sessions = await listClientSessions({ limit: MAX_CLIENTS });
  const tokenIds = sessions.flatMap((s) => idOf(s.clientKey, "token") ?? []);
  const grantIds = sessions.flatMap((s) => idOf(s.clientKey, "oauth") ?? []);
  const [tokens, grants, calls] = await Promise.all([
    findAccessTokensByIds({ ids: tokenIds }),
    findOAuthGrantsByIds({ ids: grantIds }),
    Promise.all(sessions.map((s) => listRecentToolCalls({ sessionId: s.id, limit: CALLS_PER_CLIENT }))),
  ]);
  const tokenById = new Map(tokens.map((t) => [t.id, t]));
  const grantById = new Map(grants.map((g) => [g.id, g]));
  return sessions.flatMap((session, index): ConnectedClient[] => {
    const base = {
      key: session.clientKey,
      user: { id: session.owner.id, email: session.owner.email ?? null },
      mode: session.mode,
      agentId: session.agentId,
      lastSeenAt: session.updatedAt.toISOString(),
      recentCalls: calls[index]!.map((c) => ({
        toolName: c.toolName,
        status: c.status,
        approvalId: c.approvalId,
        at: c.createdAt.toISOString(),
      })),
    };
    const token = tokenById.get(idOf(session.clientKey, "token") ?? "");
    if (token) {
      const status = token.revokedAt ? "revoked" : token.expiresAt && token.expiresAt <= now ? "expired" : "active";
      return [{ ...base, kind: "token", name: token.name, label: `${token.prefix}…`, status }];
    }
    const grant = grantById.get(idOf(session.clientKey, "oauth") ?? "");
    if (grant)
      return [
        {
          ...base,
          kind: "oauth",
          name: grant.client.name,
          label: grant.client.clientId,
          status: grant.revokedAt ? "revoked" : "active",
        },
      ];
    // The token or grant is gone (its user deleted): nothing left to show.
    return [];
  });
}
