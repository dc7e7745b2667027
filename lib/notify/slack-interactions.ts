import "server-only";
// Slack's interactivity requests (the Allow once / Deny buttons). Checked in this order, nothing decided before
// all pass: the v0 signature over the raw body and a timestamp within 5 minutes; never seen before (a replay of a
// captured request is refused); a Toolgate action; a Slack user an admin linked to an active owner. The decision
// records "slack" as its channel, and the message is replaced with the outcome through the interaction's
// response_url, which must be on the incoming webhook's own origin (a signed request still names where we post).
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";
import { findApproval } from "@/lib/db/approvals";
import { findSlackUserLink, insertSlackInteractionSeen } from "@/lib/db/slack";
import { getUserWithRoles, isUserActive } from "@/lib/db/users";
import { decideApproval } from "@/lib/approvals/service";
import { postJson } from "./http-post";
import { checkSlackSignature, SLACK_MAX_AGE_SECONDS } from "./slack-signature";
import { slackText } from "./slack";

const Payload = z.object({
  type: z.literal("block_actions"),
  user: z.object({ id: z.string().min(1).max(64) }),
  response_url: z.string().url().optional(),
  actions: z.array(z.object({ action_id: z.string().max(100), value: z.string().max(100).optional() })).min(1),
});

const DECISIONS = { "toolgate.allow-once": "allow-once", "toolgate.deny": "deny" } as const;

type Reply = { status: number; body: Record<string, unknown> };
const ephemeral = (text: string): Reply => ({
  status: 200,
  body: { response_type: "ephemeral", replace_original: false, text },
});

async function updateMessage(responseUrl: string | undefined, text: string): Promise<void> {
  const hook = loadConfig().SLACK_WEBHOOK_URL;
  if (!responseUrl || !hook) return;
  if (new URL(responseUrl).origin !== new URL(hook).origin) {
    log("warn", "slack_response_url_refused", { origin: new URL(responseUrl).origin });
    return;
  }
  const result = await postJson(
    responseUrl,
    JSON.stringify({ replace_original: true, text, blocks: [{ type: "section", text: { type: "mrkdwn", text } }] }),
  );
  if (!result.ok) log("warn", "slack_response_url_failed", { error: result.error });
}

export async function handleSlackInteraction({
  rawBody,
  timestamp,
  signature,
}: {
  rawBody: string;
  timestamp: string | null;
  signature: string | null;
}): Promise<Reply> {
  const secret = loadConfig().SLACK_SIGNING_SECRET;
  if (!secret) throw new AppError("NOT_FOUND", "Slack is not configured");
  const check = checkSlackSignature({ secret, timestamp, signature, body: rawBody });
  if (!check.ok) throw new AppError("UNAUTHENTICATED", check.problem);
  if (
    !(await insertSlackInteractionSeen({
      signature: signature!,
      olderThan: new Date(Date.now() - 2 * SLACK_MAX_AGE_SECONDS * 1000),
    }))
  )
    throw new AppError("UNAUTHENTICATED", "this request was already received (a replay)");
  let payload: z.infer<typeof Payload>;
  try {
    const parsed = Payload.safeParse(JSON.parse(new URLSearchParams(rawBody).get("payload") ?? ""));
    if (!parsed.success) return ephemeral("Toolgate does not handle this interaction.");
    payload = parsed.data;
  } catch {
    throw new AppError("BAD_REQUEST", "the payload is not JSON");
  }
  const action = payload.actions[0]!;
  const decision = DECISIONS[action.action_id as keyof typeof DECISIONS];
  if (!decision || !action.value) return ephemeral("Toolgate does not handle this button.");
  const link = await findSlackUserLink({ slackUserId: payload.user.id });
  const owner = link ? await getUserWithRoles({ userId: link.userId }) : null;
  if (!owner || !owner.roles.includes("owner") || !(await isUserActive({ userId: owner.id })))
    return ephemeral(
      "Your Slack account is not linked to a Toolgate owner: nothing was decided. An admin links it in Toolgate.",
    );
  const approvalId = action.value;
  try {
    const outcome = await decideApproval({ approvalId, ownerId: owner.id, decision, via: "slack" });
    // A critical request still waits for a second, different owner: the message stays, with its buttons.
    if (outcome.quorum)
      return ephemeral(
        `Your allow is recorded (${outcome.quorum.given} of ${outcome.quorum.needed}): another approver must allow it too.`,
      );
  } catch (error) {
    if (error instanceof AppError && ["CONFLICT", "NOT_FOUND", "FORBIDDEN"].includes(error.code)) {
      const now = await findApproval({ id: approvalId });
      if (now && now.status !== "pending") await updateMessage(payload.response_url, await outcomeText(now));
      return ephemeral(`Nothing was decided: ${error.message}.`);
    }
    throw error;
  }
  const decided = (await findApproval({ id: approvalId }))!;
  await updateMessage(payload.response_url, await outcomeText(decided));
  return { status: 200, body: {} };
}

async function outcomeText(a: {
  status: string;
  resolvedById: string | null;
  resolvedAt: Date | null;
  resolveReason: string | null;
  toolName: string;
  resolvedVia: string | null;
}): Promise<string> {
  const by = a.resolvedById ? ((await getUserWithRoles({ userId: a.resolvedById }))?.email ?? "an owner") : null;
  const at = a.resolvedAt ? a.resolvedAt.toUTCString() : "";
  const where = a.resolvedVia ? ` (from ${a.resolvedVia})` : "";
  if (a.status === "approved") return slackText(`Allowed by ${by} at ${at}${where}: ${a.toolName}`);
  if (a.status === "denied")
    return slackText(`Denied by ${by}${a.resolveReason ? `: ${a.resolveReason}` : ""} at ${at}${where}: ${a.toolName}`);
  return slackText(`Expired: no owner decided in time (${a.toolName})`);
}
