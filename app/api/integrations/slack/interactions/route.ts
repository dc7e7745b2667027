import { NextResponse } from "next/server";
import { errorResponse } from "@/lib/http/respond";
import { BODY_LIMITS, readBodyText } from "@/lib/http/body";
import { handleSlackInteraction } from "@/lib/notify/slack-interactions";

/**
 * Slack's interactivity requests (form-encoded, from Slack's servers: not a browser, so not `handle`'s same-origin
 * JSON rule). The signature over the raw body is the authentication; it is checked before the payload is parsed.
 */
export async function POST(request: Request): Promise<Response> {
  try {
    const rawBody = await readBodyText(request, BODY_LIMITS.small * 4);
    const reply = await handleSlackInteraction({
      rawBody,
      timestamp: request.headers.get("x-slack-request-timestamp"),
      signature: request.headers.get("x-slack-signature"),
    });
    return NextResponse.json(reply.body, { status: reply.status });
  } catch (error) {
    return errorResponse(error);
  }
}
