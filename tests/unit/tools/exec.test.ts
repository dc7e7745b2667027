import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { execTool } from "@/lib/tools/builtin";
import { runCommand, type RunCommandResult } from "@/lib/tools/exec-runner";
import { callOptions, makeContext, makeSandboxDirs } from "./support/tool-context";

/** True when the pid is gone or a zombie nobody reaped yet (PID 1 in a container may never reap it). */
async function isDead(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat === "" || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
}

async function waitDead(pid: number, ms = 2_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await isDead(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return isDead(pid);
}

async function runIn(
  command: string,
  overrides: { timeoutMs?: number; maxOutputBytes?: number; abortSignal?: AbortSignal } = {},
) {
  const { workspace } = await makeSandboxDirs();
  const result = await runCommand({
    command,
    cwd: workspace,
    timeoutMs: overrides.timeoutMs ?? 10_000,
    maxOutputBytes: overrides.maxOutputBytes ?? 64 * 1024,
    abortSignal: overrides.abortSignal,
  });
  return { workspace, result };
}

describe("runCommand", () => {
  it("captures stdout, stderr and the exit code in the workspace with a minimal environment", async () => {
    process.env.TOOLGATE_TEST_SECRET = "leak";
    const { workspace, result } = await runIn(
      'echo out; echo err >&2; pwd; echo "home=$HOME secret=${TOOLGATE_TEST_SECRET:-none}"; exit 3',
    );
    delete process.env.TOOLGATE_TEST_SECRET;
    expect(result).toMatchObject<Partial<RunCommandResult>>({
      exitCode: 3,
      signal: null,
      timedOut: false,
      truncated: false,
    });
    expect(result.stdout).toBe(`out\n${workspace}\nhome=${workspace} secret=none\n`);
    expect(result.stderr).toBe("err\n");
  });

  it("kills the command on timeout, quickly", async () => {
    const started = Date.now();
    const { result } = await runIn("sleep 30", { timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe("SIGKILL");
    expect(Date.now() - started).toBeLessThan(10_000); // killed, not run to its end (30 s); generous for a loaded machine
  });

  it("kills background children on timeout too", async () => {
    const { workspace, result } = await runIn("sleep 30 & echo $! > bg.pid; sleep 30", { timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    const pid = Number(await readFile(path.join(workspace, "bg.pid"), "utf8"));
    expect(pid).toBeGreaterThan(0);
    expect(await waitDead(pid)).toBe(true);
  });

  it("does not wait for, or leave behind, background jobs once the command exits", async () => {
    const started = Date.now();
    const { result } = await runIn("sleep 30 & echo $!");
    expect(Date.now() - started).toBeLessThan(10_000); // killed, not run to its end (30 s); generous for a loaded machine
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(await waitDead(Number(result.stdout.trim()))).toBe(true);
  });

  it("caps each stream at maxOutputBytes and flags the truncation", async () => {
    const { result } = await runIn("yes x | head -c 100000; yes e | head -c 50 >&2", { maxOutputBytes: 1000 });
    expect(result.stdout.length).toBe(1000);
    expect(result.stderr.length).toBe(50);
    expect(result.truncated).toBe(true);
    expect(result.exitCode).toBe(0);
  });

  it("stops the whole group when the abort signal fires", async () => {
    const controller = new AbortController();
    const { workspace } = await makeSandboxDirs();
    // Aborted once the command runs (its background job has written its pid), not on a timer a busy machine outruns.
    const running = (async () => {
      while (!(await readFile(path.join(workspace, "bg.pid"), "utf8").catch(() => "")))
        await new Promise((r) => setTimeout(r, 25));
      controller.abort();
    })();
    const started = Date.now();
    const result = await runCommand({
      command: "sleep 30 & echo $! > bg.pid; sleep 30",
      cwd: workspace,
      timeoutMs: 60_000,
      maxOutputBytes: 64 * 1024,
      abortSignal: controller.signal,
    });
    await running;
    expect(result).toMatchObject({ aborted: true, timedOut: false, signal: "SIGKILL" });
    expect(Date.now() - started).toBeLessThan(10_000); // killed, not run to its end (30 s); generous for a loaded machine
    expect(await waitDead(Number(await readFile(path.join(workspace, "bg.pid"), "utf8")))).toBe(true);
  });

  it("runs a different argv, for sandbox wrappers", async () => {
    const { workspace } = await makeSandboxDirs();
    const result = await runCommand({
      command: "ignored",
      argv: ["/bin/sh", "-c", 'printf "%s" "$0"', "wrapped"],
      cwd: workspace,
      timeoutMs: 5_000,
      maxOutputBytes: 100,
    });
    expect(result.stdout).toBe("wrapped");
  });
});

describe("exec tool", () => {
  it("runs in the context workspace and caps the timeout at the system limit", async () => {
    const { workspace } = await makeSandboxDirs();
    await writeFile(path.join(workspace, "hello.txt"), "hi from workspace");
    const ctx = makeContext(workspace, { exec: { timeoutMs: 300, maxOutputBytes: 1000 } });
    const ok = await execTool.execute({ command: "cat hello.txt" }, callOptions(ctx));
    expect(ok).toMatchObject({ exitCode: 0, stdout: "hi from workspace" });
    const started = Date.now();
    const slow = await execTool.execute({ command: "sleep 30", timeoutMs: 60_000 }, callOptions(ctx));
    expect(slow.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000); // killed, not run to its end (30 s); generous for a loaded machine
  });

  it("passes the call's abort signal through", async () => {
    const { workspace } = await makeSandboxDirs();
    const controller = new AbortController();
    // Aborted once the sandbox's process exists, not on a timer that may fire before the command started.
    const ctx = makeContext(workspace, { trackProcess: () => void setTimeout(() => controller.abort(), 100) });
    const result = await execTool.execute({ command: "sleep 30" }, callOptions(ctx, controller.signal));
    expect(result.aborted).toBe(true);
  });
});
