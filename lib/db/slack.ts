import "server-only";
// Slack: which Slack user decides as which Toolgate user (entered by an admin), and the interaction requests
// already handled (replay guard).
import { getDb } from "./client";

export async function findSlackUserLink({ slackUserId }: { slackUserId: string }) {
  return getDb().slackUserLink.findUnique({ where: { slackUserId } });
}

export async function listSlackUserLinks() {
  return getDb().slackUserLink.findMany({ orderBy: { createdAt: "asc" } });
}

export async function upsertSlackUserLink({
  slackUserId,
  userId,
  createdById,
}: {
  slackUserId: string;
  userId: string;
  createdById: string;
}) {
  return getDb().slackUserLink.upsert({
    where: { slackUserId },
    create: { slackUserId, userId, createdById },
    update: { userId, createdById },
  });
}

export async function deleteSlackUserLink({ slackUserId }: { slackUserId: string }): Promise<boolean> {
  return (await getDb().slackUserLink.deleteMany({ where: { slackUserId } })).count === 1;
}

/** Records a request's signature as seen; false when it was seen before (a replay). Old rows are pruned. */
export async function insertSlackInteractionSeen({
  signature,
  olderThan,
}: {
  signature: string;
  olderThan: Date;
}): Promise<boolean> {
  const db = getDb();
  await db.slackInteractionSeen.deleteMany({ where: { receivedAt: { lt: olderThan } } });
  try {
    await db.slackInteractionSeen.create({ data: { signature } });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") return false;
    throw error;
  }
}
