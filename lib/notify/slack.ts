import "server-only";
// A Slack-compatible target: the request as a Block Kit message with Allow once / Deny buttons, posted to an
// incoming-webhook URL (SLACK_WEBHOOK_URL). The buttons carry only the approval's id; Slack's signed interaction
// request says who pressed them (lib/notify/slack-interactions.ts).
import { loadConfig } from "@/lib/config";
import { postJson, type Attempt } from "./http-post";
import type { OutsideApproval } from "./payload";

export function slackConfigured(): boolean {
  const c = loadConfig();
  return Boolean(c.SLACK_WEBHOOK_URL && c.SLACK_SIGNING_SECRET);
}

/** Slack's mrkdwn control characters, and a fence that would end our code block early. */
export function slackText(s: string, max = 2_500): string {
  const cut = s.length > max ? `${s.slice(0, max)}…` : s;
  return cut.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/```/g, "'''");
}

export function approvalBlocks(approval: OutsideApproval) {
  const what = approval.command ?? JSON.stringify(approval.args);
  const who = approval.requester.email ?? "a member";
  const blocks: unknown[] = [
    {
      type: "section",
      text: {
        type: "mrkdwn",
        text: `*${slackText(who, 200)}* asks to run *${slackText(approval.toolName, 200)}*:\n\`\`\`${slackText(what)}\`\`\`\nWhy: ${slackText(approval.reason, 300)}`,
      },
    },
  ];
  if (approval.risks.length)
    blocks.push({
      type: "context",
      elements: [
        { type: "mrkdwn", text: slackText(approval.risks.map((r) => `${r.label}: ${r.detail}`).join(" · "), 1_000) },
      ],
    });
  blocks.push({
    type: "context",
    elements: [{ type: "mrkdwn", text: `Expires ${new Date(approval.expiresAt).toUTCString()}` }],
  });
  const buttons: unknown[] = [
    {
      type: "button",
      action_id: "toolgate.allow-once",
      value: approval.id,
      style: "primary",
      text: { type: "plain_text", text: "Allow once" },
    },
    {
      type: "button",
      action_id: "toolgate.deny",
      value: approval.id,
      style: "danger",
      text: { type: "plain_text", text: "Deny" },
    },
  ];
  if (approval.link)
    buttons.push({
      type: "button",
      action_id: "toolgate.open",
      url: approval.link,
      text: { type: "plain_text", text: "Open in Toolgate" },
    });
  blocks.push({ type: "actions", block_id: `toolgate.approval.${approval.id}`, elements: buttons });
  return { text: `Approval needed: ${approval.toolName} (from ${who})`, blocks };
}

export async function sendSlack({ approval }: { approval: OutsideApproval }): Promise<Attempt> {
  const url = loadConfig().SLACK_WEBHOOK_URL;
  if (!url) return { ok: false, retry: false, status: null, error: "SLACK_WEBHOOK_URL no longer configured" };
  return postJson(url, JSON.stringify(approvalBlocks(approval)));
}
