import "server-only";
// The admin's mapping of Slack users to Toolgate owners (Toolgate cannot ask Slack who someone is). Each change is
// audited. Only an owner can be linked, and a decision re-checks that the user is still an active owner.
import { AppError } from "@/lib/errors";
import { appendAudit } from "@/lib/db/audit";
import { deleteSlackUserLink, listSlackUserLinks, upsertSlackUserLink } from "@/lib/db/slack";
import { findUserByEmail, findUserEmails, getUserWithRoles } from "@/lib/db/users";
import type { CurrentUser } from "@/lib/auth/guards";

export async function listSlackLinks() {
  const links = await listSlackUserLinks();
  const emails = await findUserEmails({ userIds: links.map((l) => l.userId) });
  return links.map((l) => ({
    slackUserId: l.slackUserId,
    userId: l.userId,
    email: emails.get(l.userId) ?? null,
    createdAt: l.createdAt,
  }));
}

export async function linkSlackUser({
  actor,
  slackUserId,
  email,
}: {
  actor: CurrentUser;
  slackUserId: string;
  email: string;
}) {
  const found = await findUserByEmail({ email: email.toLowerCase() });
  const user = found ? await getUserWithRoles({ userId: found.id }) : null;
  if (!user) throw new AppError("NOT_FOUND", "no user with that e-mail");
  if (!user.roles.includes("owner")) throw new AppError("VALIDATION_FAILED", "only an owner can decide from Slack");
  await upsertSlackUserLink({ slackUserId, userId: user.id, createdById: actor.id });
  await appendAudit({
    action: "slack.user_linked",
    actorId: actor.id,
    decision: "allow",
    details: { slackUserId, userId: user.id, email: user.email },
  });
  return { slackUserId, userId: user.id, email: user.email };
}

export async function unlinkSlackUser({ actor, slackUserId }: { actor: CurrentUser; slackUserId: string }) {
  if (!(await deleteSlackUserLink({ slackUserId }))) throw new AppError("NOT_FOUND", "that Slack user is not linked");
  await appendAudit({ action: "slack.user_unlinked", actorId: actor.id, decision: "allow", details: { slackUserId } });
}
