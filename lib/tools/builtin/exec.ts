import { z } from "zod";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";
import { repositoryMetadataPaths } from "../repository-metadata";
import { runHostCommand, runSandboxedCommand } from "../sandbox";
import { ensureWorkspace } from "../workspace";
import { AppError } from "@/lib/errors";
import { assertWithinQuota, watchQuota } from "../workspace-quota";
import { countSandboxRun, limitsHit } from "@/lib/ops/metrics";
import { execFailed } from "../result-shapes";

const inputSchema = z.object({
  command: z.string().min(1).max(100_000).describe("Shell command line, run with /bin/sh -c in the workspace directory."),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Timeout in milliseconds; capped by the system limit, which is also the default."),
});

// Approval and policy checks happen in the agent loop before this runs; this only executes, always in the
// sandbox unless an admin set this agent or team to run on the host (exec.host).
export const execTool = defineBuiltinTool({
  name: "exec",
  description: "Run a shell command in the workspace (sandboxed: no network, only the workspace writable) and return its exit code and output.",
  group: "runtime",
  allowedModes: ["coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const ctx = getToolContext(options);
    const cwd = await ensureWorkspace(ctx.workspaceDir);
    const quotaBytes = ctx.disk?.workspaceQuotaBytes;
    await assertWithinQuota(cwd, quotaBytes);
    // The command is stopped as soon as the workspace passes its quota while it runs (see watchQuota).
    const stop = new AbortController();
    const abortSignal = options.abortSignal ? AbortSignal.any([options.abortSignal, stop.signal]) : stop.signal;
    let overQuota = false;
    const unwatch = watchQuota(cwd, quotaBytes, () => {
      overQuota = true;
      stop.abort();
    });
    const run = {
      command: input.command,
      cwd,
      timeoutMs: Math.min(input.timeoutMs ?? ctx.exec.timeoutMs, ctx.exec.timeoutMs),
      maxOutputBytes: ctx.exec.maxOutputBytes,
      abortSignal,
      onSpawn: ctx.trackProcess,
    };
    const limited = ctx.disk?.maxFileBytes ? { ...ctx.sandbox, limits: { ...ctx.sandbox?.limits, fileBytes: ctx.disk.maxFileBytes } } : ctx.sandbox;
    // No owner approved this call: the repositories' metadata is read-only for it (see repository-metadata.ts).
    const sandbox = ctx.protectRepositories ? { ...limited, readOnlyPaths: await repositoryMetadataPaths(cwd) } : limited;
    try {
      const result = await (ctx.execHost ? runHostCommand(run, sandbox) : runSandboxedCommand(run, sandbox)).catch((error: unknown) => {
        countSandboxRun(ctx.execHost ? "host" : "sandbox", "unavailable");
        throw error;
      });
      countSandboxRun(ctx.execHost ? "host" : "sandbox", execFailed(result) ? "failed" : "ok", limitsHit(result, overQuota));
      if (overQuota) {
        throw new AppError("LIMIT_EXCEEDED", `the command was stopped: the workspace passed its disk quota (${quotaBytes} bytes) while it ran; delete files before running more`, {
          limit: "workspaceQuotaBytes",
          workspaceQuotaBytes: quotaBytes,
          stdout: result.stdout.slice(-2000),
          stderr: result.stderr.slice(-2000),
        });
      }
      return result;
    } finally {
      unwatch();
    }
  },
});
