// Slack's request signing (v0): X-Slack-Signature = "v0=" + hex HMAC-SHA256(signing secret, "v0:" + timestamp + ":" +
// raw body), X-Slack-Request-Timestamp in unix seconds. A timestamp more than 5 minutes from our clock is refused.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SLACK_MAX_AGE_SECONDS = 300;

export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

export type SlackCheck = { ok: true } | { ok: false; problem: string };

export function checkSlackSignature({
  secret,
  timestamp,
  signature,
  body,
  now = Date.now(),
}: {
  secret: string;
  timestamp: string | null;
  signature: string | null;
  body: string;
  now?: number;
}): SlackCheck {
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !signature)
    return { ok: false, problem: "missing or malformed Slack signature headers" };
  if (Math.abs(now / 1000 - Number(timestamp)) > SLACK_MAX_AGE_SECONDS)
    return { ok: false, problem: "the request's timestamp is more than 5 minutes old (or ahead)" };
  const expected = Buffer.from(slackSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, problem: "the Slack signature does not match" };
  return { ok: true };
}
