import { z } from "zod";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";
import { repositoryMetadataPaths } from "../repository-metadata";
import { runHostCommand, runSandboxedCommand, type SandboxConfig } from "../sandbox";
import { ensureWorkspace } from "../workspace";
import { AppError } from "@/lib/errors";
import { recoverLayers } from "../overlay-recovery";
import {
  applyOverlay,
  diffOverlay,
  discardOverlay,
  inWorkspaceTurn,
  mountOverlay,
  unmountOverlay,
  upperBytes,
  type CommandChanges,
  type Overlay,
} from "../workspace-changes";
import { addUsage, assertWithinQuota, assertWithinQuotaEstimated, watchQuota } from "../workspace-quota";
import type { RunCommandResult } from "../exec-runner";
import { memberGroups } from "../cgroups";
import { workspaceUid } from "../workspace-owner";
import { countSandboxRun, limitsHit } from "@/lib/ops/metrics";
import { execFailed } from "../result-shapes";
import { openCommandEgress } from "../egress-run";

const inputSchema = z.object({
  command: z
    .string()
    .min(1)
    .max(100_000)
    .describe("Shell command line, run with /bin/sh -c in the workspace directory."),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Timeout in milliseconds; capped by the system limit, which is also the default."),
});

const QUOTA_POLL_MS = 500;

/** Stops the command once what its overlay holds, added to the workspace's kept usage, passes the quota. */
function watchOverlayQuota(
  overlay: Overlay,
  base: number,
  quotaBytes: number | undefined,
  onOver: () => void,
): () => void {
  if (!quotaBytes) return () => {};
  let measuring = false;
  const timer = setInterval(() => {
    if (measuring) return;
    measuring = true;
    upperBytes(overlay)
      .then((written) => {
        if (base + written > quotaBytes) {
          clearInterval(timer);
          onOver();
        }
      })
      .catch(() => {})
      .finally(() => {
        measuring = false;
      });
  }, QUOTA_POLL_MS);
  return () => clearInterval(timer);
}

/** Runs a command and counts it for /metrics: unavailable when the sandbox could not start it, else ok or failed with the limits it hit. */
async function counted(
  where: "host" | "sandbox",
  start: () => Promise<RunCommandResult>,
  overQuota: () => boolean,
): Promise<RunCommandResult> {
  const result = await start().catch((error: unknown) => {
    countSandboxRun(where, "unavailable");
    throw error;
  });
  countSandboxRun(where, execFailed(result) ? "failed" : "ok", limitsHit(result, overQuota()));
  return result;
}

function quotaError(quotaBytes: number | undefined, result: RunCommandResult, dropped: boolean): AppError {
  const what = dropped ? "; nothing it wrote was kept" : "; delete files before running more";
  return new AppError(
    "LIMIT_EXCEEDED",
    `the command was stopped: the workspace passed its disk quota (${quotaBytes} bytes) while it ran${what}`,
    {
      limit: "workspaceQuotaBytes",
      workspaceQuotaBytes: quotaBytes,
      stdout: result.stdout.slice(-2000),
      stderr: result.stderr.slice(-2000),
    },
  );
}

// Approval and policy checks happen in the agent loop before this runs; this only executes, always in the
// sandbox unless an admin set this agent or team to run on the host (exec.host).
export const execTool = defineBuiltinTool({
  name: "exec",
  description:
    "Run a shell command in the workspace (sandboxed: no network, only the workspace writable) and return its exit code, output and the files it created, changed or deleted (what it deleted or overwrote can be restored).",
  group: "runtime",
  allowedModes: ["coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const ctx = getToolContext(options);
    const cwd = await ensureWorkspace(ctx.workspaceDir);
    const quotaBytes = ctx.disk?.workspaceQuotaBytes;
    const stop = new AbortController();
    const abortSignal = options.abortSignal ? AbortSignal.any([options.abortSignal, stop.signal]) : stop.signal;
    const run = {
      command: input.command,
      cwd,
      timeoutMs: Math.min(input.timeoutMs ?? ctx.exec.timeoutMs, ctx.exec.timeoutMs),
      maxOutputBytes: ctx.exec.maxOutputBytes,
      abortSignal,
      onSpawn: ctx.trackProcess,
    };
    const limited = ctx.disk?.maxFileBytes
      ? { ...ctx.sandbox, limits: { ...ctx.sandbox?.limits, fileBytes: ctx.disk.maxFileBytes } }
      : ctx.sandbox;
    // No owner approved this call: the repositories' metadata is read-only for it (see repository-metadata.ts).
    const guarded: SandboxConfig = ctx.protectRepositories
      ? { ...limited, readOnlyPaths: await repositoryMetadataPaths(cwd) }
      : (limited ?? {});
    // One member's commands share one budget: the group is named by the workspace's uid (one per member).
    const cgroups = ctx.budget ? await memberGroups(String(await workspaceUid(cwd)), ctx.budget) : [];
    // A command no owner approved in allowlist mode keeps git's external diff off; any other runs the member's own.
    const common: SandboxConfig = {
      ...guarded,
      ...(cgroups.length > 0 ? { cgroups } : {}),
      ...(ctx.protectRepositories ? {} : { externalDiff: true }),
    };

    if (ctx.execHost) return runOnHost(common);
    // Network by domain: this command's own proxy, bound into its sandbox only (egress-run.ts).
    const egress = await openCommandEgress(ctx, await workspaceUid(cwd));
    const sandbox: SandboxConfig = egress.config ? { ...common, egress: egress.config } : common;
    const done = await inWorkspaceTurn(cwd, async () => {
      // A layer a dead server (or a failed apply) left: finished or dropped before this command sees the workspace.
      await recoverLayers(cwd);
      const base = await assertWithinQuotaEstimated(cwd, quotaBytes);
      const overlay = await mountOverlay(cwd, options.callId ?? "call");
      // Without overlayfs (a server not running as root): the workspace itself, watched by the walk as before.
      if (!overlay) return runDirect();
      let overQuota = false;
      const unwatch = watchOverlayQuota(overlay, base, quotaBytes, () => {
        overQuota = true;
        stop.abort();
      });
      let result: RunCommandResult;
      try {
        result = await counted(
          "sandbox",
          () => runSandboxedCommand(run, { ...sandbox, workspaceSource: overlay.merged }),
          () => overQuota,
        );
      } catch (error) {
        await discardOverlay(overlay);
        throw error;
      } finally {
        unwatch();
      }
      // Over quota: the command's writes are dropped whole, the workspace stays as it was before it.
      if (overQuota) {
        await discardOverlay(overlay);
        throw quotaError(quotaBytes, result, true);
      }
      const plan = await diffOverlay(overlay);
      await unmountOverlay(overlay);
      const changes: CommandChanges = await applyOverlay(overlay, plan);
      const freed = [...plan.deleted, ...plan.changed].reduce((sum, e) => sum + (e.previousSize ?? e.size), 0);
      await addUsage(cwd, plan.writtenBytes - freed);
      return { ...result, changes };
    }).catch(async (error: unknown) => {
      await egress.finish();
      throw error;
    });
    const network = await egress.finish(options.callId ?? "call");
    return network ? { ...done, network } : done;

    async function runOnHost(config: SandboxConfig) {
      return watched("host", () => runHostCommand(run, config));
    }
    async function runDirect() {
      return watched("sandbox", () => runSandboxedCommand(run, sandbox));
    }
    async function watched(where: "host" | "sandbox", start: () => Promise<RunCommandResult>) {
      await assertWithinQuota(cwd, quotaBytes);
      let overQuota = false;
      const unwatch = watchQuota(cwd, quotaBytes, () => {
        overQuota = true;
        stop.abort();
      });
      try {
        const result = await counted(where, start, () => overQuota);
        if (overQuota) throw quotaError(quotaBytes, result, false);
        return {
          ...result,
          changes: null,
          changesNote:
            "this command wrote the workspace directly: no change list or trash is kept (host execution, or no overlayfs)",
        };
      } finally {
        unwatch();
      }
    }
  },
});
