import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { handle, parseJsonBody, parseSearchParams } from "@/lib/http/respond";
import { linkSlackUser, listSlackLinks, unlinkSlackUser } from "@/lib/notify/slack-links";

// Slack user ids look like U0123ABCD (or W… on Enterprise Grid).
const SlackUserId = z
  .string()
  .trim()
  .regex(/^[UW][A-Z0-9]{2,30}$/, "a Slack user id, like U0123ABCD");
const LinkBody = z.object({ slackUserId: SlackUserId, email: z.string().trim().email().max(320) }).strict();
const UnlinkQuery = z.object({ slackUserId: SlackUserId }).strict();

/** Which Slack user decides as which Toolgate owner. */
export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json({ links: await listSlackLinks() });
});

export const PUT = handle(async (request: Request) => {
  const actor = await requireRole("admin");
  const body = await parseJsonBody(request, LinkBody);
  return NextResponse.json(await linkSlackUser({ actor, ...body }));
});

export const DELETE = handle(async (request: Request) => {
  const actor = await requireRole("admin");
  const { slackUserId } = parseSearchParams(request, UnlinkQuery);
  await unlinkSlackUser({ actor, slackUserId });
  return NextResponse.json({ ok: true });
});
