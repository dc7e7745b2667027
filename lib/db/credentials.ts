import "server-only";
// Every credential a user holds outside their browser session: personal access tokens and OAuth grants (with the
// tokens issued under them). "Revoke everything" must not leave a window where some are live and some are not, nor
// a revocation without its audit row, so it is one transaction with the audit row written last.
import { insertAuditRow } from "./audit";
import { getDb, transact } from "./client";

export type OAuthGrantListing = {
  id: string;
  clientName: string;
  mode: string;
  agentId: string | null;
  createdAt: Date;
  lastTokenAt: Date | null;
};

/** The user's live OAuth grants, newest first. `lastTokenAt` is the last time the client got tokens (a refresh). */
export async function listLiveOAuthGrants({ userId }: { userId: string }): Promise<OAuthGrantListing[]> {
  const rows = await getDb().oAuthGrant.findMany({
    where: { userId, revokedAt: null },
    orderBy: { createdAt: "desc" },
    take: 200,
    select: {
      id: true,
      mode: true,
      agentId: true,
      createdAt: true,
      client: { select: { name: true } },
      tokens: { orderBy: { createdAt: "desc" }, take: 1, select: { createdAt: true } },
    },
  });
  return rows.map((r) => ({
    id: r.id,
    clientName: r.client.name,
    mode: r.mode,
    agentId: r.agentId,
    createdAt: r.createdAt,
    lastTokenAt: r.tokens[0]?.createdAt ?? null,
  }));
}

/** Revokes one of the user's grants and its tokens; false when the user has no such live grant (another's included). */
export async function revokeOAuthGrantOfUser({
  userId,
  grantId,
  actorId,
  at,
}: {
  userId: string;
  grantId: string;
  actorId: string;
  at: Date;
}): Promise<boolean> {
  return transact(async (tx) => {
    const { count } = await tx.oAuthGrant.updateMany({
      where: { id: grantId, userId, revokedAt: null },
      data: { revokedAt: at },
    });
    if (count === 0) return false;
    const tokens = await tx.oAuthToken.updateMany({ where: { grantId, revokedAt: null }, data: { revokedAt: at } });
    await insertAuditRow(
      tx,
      { action: "oauth.grant_revoked", actorId, decision: "allow", details: { userId, grantId, tokens: tokens.count } },
      at,
    );
    return true;
  });
}

export type RevokedCounts = { accessTokens: number; oauthGrants: number; oauthTokens: number };

export async function revokeAllCredentialsOfUser({
  userId,
  actorId,
  at,
}: {
  userId: string;
  actorId: string;
  at: Date;
}): Promise<RevokedCounts> {
  return transact(async (tx) => {
    const accessTokens = await tx.accessToken.updateMany({
      where: { userId, revokedAt: null },
      data: { revokedAt: at },
    });
    const oauthGrants = await tx.oAuthGrant.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: at } });
    const oauthTokens = await tx.oAuthToken.updateMany({
      where: { grant: { userId }, revokedAt: null },
      data: { revokedAt: at },
    });
    const counts = { accessTokens: accessTokens.count, oauthGrants: oauthGrants.count, oauthTokens: oauthTokens.count };
    await insertAuditRow(
      tx,
      { action: "credentials.revoked_all", actorId, decision: "allow", details: { userId, ...counts } },
      at,
    );
    return counts;
  });
}
