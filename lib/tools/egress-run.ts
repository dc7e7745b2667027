// One command's network: its proxy opened before bwrap starts and closed when the command ends; the unlisted
// domains it tried become approvals afterwards. The refused request was answered 403 at once (the command never
// waits for an owner); the tool result names the approvals, and after a decision the model makes a new call.
import { existsSync } from "node:fs";
import { decideEgress } from "@/lib/policy/egress";
import type { ToolRunContext } from "./context";
import { startEgressProxy, type EgressEvent } from "./egress-proxy";
import { SOCAT_PATH } from "./sandbox";

export type NetworkReport = {
  reached: string[];
  refused: Array<{ host: string; reason: string }>;
  approvals: Array<{ domain: string; approvalId: string | null; note?: string }>;
  uploadedBytes: number;
  note?: string;
};

export type CommandEgress = {
  /** For SandboxConfig.egress; undefined: the command has no network at all. */
  config?: { socketPath: string };
  /** Closes the proxy; with a callId (the command completed) also asks for the domains it was refused. */
  finish(callId?: string): Promise<NetworkReport | undefined>;
};

const NONE: CommandEgress = { finish: async () => undefined };

function summarise(events: readonly EgressEvent[]) {
  const reached = [...new Set(events.filter((e) => e.action === "allow").map((e) => e.host))];
  const refused = events
    .filter((e) => e.action !== "allow")
    .map((e) => ({ host: e.host, reason: e.reason ?? "refused" }));
  return { reached, refused: refused.slice(0, 20) };
}

export async function openCommandEgress(ctx: ToolRunContext, uid: number | undefined): Promise<CommandEgress> {
  const services = ctx.egress;
  if (!services) return NONE;
  // Fail closed: without socat inside, the sandbox stays without any network, as before this feature.
  if (!existsSync(/*turbopackIgnore: true*/ SOCAT_PATH)) {
    return {
      finish: async () => ({
        reached: [],
        refused: [],
        approvals: [],
        uploadedBytes: 0,
        note: "no network: socat is not installed on the server",
      }),
    };
  }
  const grants = await services.grantsForCommand();
  const proxy = await startEgressProxy({
    decide: (request) => decideEgress({ settings: services.settings, grants, request }),
    hosts: services.hosts,
    uploadBytes: services.settings.uploadBytes,
    uid,
  });
  let finished: Promise<NetworkReport> | undefined;
  return {
    config: { socketPath: proxy.socketPath },
    finish: (callId) => {
      finished ??= (async () => {
        await proxy.close();
        const asked = [...proxy.asked.values()];
        const approvals = callId && asked.length > 0 ? await services.requestDomainApprovals({ callId, asked }) : [];
        const pending = approvals
          .filter((a) => a.approvalId !== null)
          .map((a) => `${a.domain} (approval ${a.approvalId})`);
        return {
          ...summarise(proxy.events),
          approvals,
          uploadedBytes: proxy.uploaded(),
          ...(pending.length > 0
            ? {
                note: `network refused for ${pending.join(", ")}: an owner decides; this call is not re-run, run the command again after the decision`,
              }
            : {}),
        };
      })();
      return finished;
    },
  };
}
