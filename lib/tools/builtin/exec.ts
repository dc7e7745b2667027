import { z } from "zod";
import { getToolContext } from "../context";
import { defineBuiltinTool } from "../define-tool";
import { runCommand } from "../exec-runner";
import { runSandboxedCommand } from "../sandbox";
import { ensureWorkspace } from "../workspace";

const inputSchema = z.object({
  command: z.string().min(1).describe("Shell command line, run with /bin/sh -c in the workspace directory."),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Timeout in milliseconds; capped by the system limit, which is also the default."),
});

// Approval and policy checks happen in the agent loop before this runs; this only executes.
export const execTool = defineBuiltinTool({
  name: "exec",
  description: "Run a shell command in the workspace and return its exit code and output.",
  group: "runtime",
  allowedModes: ["coding"],
  inputSchema,
  execute: async (input: z.infer<typeof inputSchema>, options) => {
    const ctx = getToolContext(options);
    const cwd = await ensureWorkspace(ctx.workspaceDir);
    const run = {
      command: input.command,
      cwd,
      timeoutMs: Math.min(input.timeoutMs ?? ctx.exec.timeoutMs, ctx.exec.timeoutMs),
      maxOutputBytes: ctx.exec.maxOutputBytes,
      abortSignal: options.abortSignal,
    };
    // A sandboxed session runs inside bubblewrap or not at all (runSandboxedCommand refuses when bwrap cannot start).
    return ctx.sandboxed ? runSandboxedCommand(run, ctx.sandbox) : runCommand(run);
  },
});
