import "server-only";
// "Revoke everything for this user" (issue 30) and the user's connected OAuth apps. The user is always the
// caller's own id or, for an admin, a path id checked to exist; never anything the client claims about ownership.
import { AppError } from "@/lib/errors";
import { getUserWithRoles } from "@/lib/db/users";
import {
  listLiveOAuthGrants,
  revokeAllCredentialsOfUser,
  revokeOAuthGrantOfUser,
  type OAuthGrantListing,
  type RevokedCounts,
} from "@/lib/db/credentials";

export async function revokeAllCredentials({
  actor,
  userId,
}: {
  actor: { id: string };
  userId: string;
}): Promise<RevokedCounts> {
  if (userId !== actor.id && !(await getUserWithRoles({ userId })))
    throw new AppError("NOT_FOUND", `there is no user ${userId}`);
  return revokeAllCredentialsOfUser({ userId, actorId: actor.id, at: new Date() });
}

export async function listMyOAuthGrants({ user }: { user: { id: string } }): Promise<OAuthGrantListing[]> {
  return listLiveOAuthGrants({ userId: user.id });
}

export async function revokeMyOAuthGrant({ user, grantId }: { user: { id: string }; grantId: string }): Promise<void> {
  // Another user's grant and an unknown one answer alike, so ids cannot be probed.
  if (!(await revokeOAuthGrantOfUser({ userId: user.id, grantId, actorId: user.id, at: new Date() })))
    throw new AppError("NOT_FOUND", "no such connected app");
}
