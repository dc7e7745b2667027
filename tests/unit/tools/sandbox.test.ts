// Real commands in the real bubblewrap sandbox, through the real exec tool. Nothing is mocked: when bwrap
// cannot run on this machine the suite is skipped with the probe's reason (it should run: the project's
// bootstrap installs bubblewrap).
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execTool } from "@/lib/tools/builtin";
import type { RunCommandResult } from "@/lib/tools/exec-runner";
import { buildSandboxArgv, probeSandbox } from "@/lib/tools/sandbox";
import { callOptions, makeContext, makeSandboxDirs } from "./support/tool-context";

const probe = await probeSandbox();
if (!probe.ok) console.warn(`[sandbox tests] skipped: bwrap cannot start here (${probe.reason}); install bubblewrap`);

async function sandboxed(command: string, options: { timeoutMs?: number; bwrapPath?: string } = {}) {
  const { workspace, outside } = await makeSandboxDirs();
  const context = makeContext(workspace, {
    sandboxed: true,
    sandbox: { bwrapPath: options.bwrapPath, limits: { cpuSeconds: 2, maxProcesses: 32 } },
    exec: { timeoutMs: options.timeoutMs ?? 10_000, maxOutputBytes: 64 * 1024 },
  });
  const started = Date.now();
  const result = (await execTool.execute({ command }, callOptions(context))) as RunCommandResult;
  return { result, workspace, outside, elapsedMs: Date.now() - started };
}

// The sandbox and attack suites skip where bwrap cannot start (a developer's laptop); on CI that would hide them.
it.runIf(process.env.CI)(
  "bubblewrap starts on CI, so the sandbox and exec attack suites cannot be skipped there",
  () => {
    expect(probe).toMatchObject({ ok: true });
  },
);

describe("buildSandboxArgv", () => {
  it("unshares everything, binds only the workspace read-write and never binds the project, /work or /root", () => {
    const argv = buildSandboxArgv({ command: "echo hi", workspaceDir: "/srv/ws/u1" });
    const bwrap = argv.indexOf("bwrap");
    expect(bwrap).toBeGreaterThanOrEqual(0);
    for (const flag of ["--unshare-all", "--die-with-parent", "--new-session", "--clearenv"])
      expect(argv).toContain(flag);
    const binds = argv.flatMap((arg, i) => (arg === "--bind" ? [argv[i + 1]] : []));
    expect(binds).toEqual(["/srv/ws/u1"]);
    const all = argv.join(" ");
    expect(all).not.toMatch(/ \/root| \/work| \/home/);
    expect(argv.indexOf("--tmpfs")).toBeLessThan(argv.indexOf("--bind"));
    expect(argv.slice(-3)).toEqual(["/bin/sh", "-c", "echo hi"]);
  });
});

describe.skipIf(!probe.ok)("sandboxed exec (bubblewrap)", () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end("reachable"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("cannot write outside the workspace: /etc, /work and the system are read-only or absent", async () => {
    const { result } = await sandboxed(
      "touch /etc/x; echo etc=$?; touch /work/x; echo work=$?; touch /usr/x; echo usr=$?; ls /root 2>&1; echo root=$?",
    );
    expect(result.stdout).toMatch(/etc=[1-9]/);
    expect(result.stdout).toMatch(/work=[1-9]/);
    expect(result.stdout).toMatch(/usr=[1-9]/);
    expect(result.stdout).toMatch(/root=[1-9]/);
    expect(existsSync("/etc/x")).toBe(false);
    expect(existsSync("/work/x")).toBe(false);
  });

  it("has no network: a server on the host's loopback is unreachable from inside", async () => {
    // The same server answers outside the sandbox, so a failure inside is the sandbox, not the server.
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("reachable");
    const { result } = await sandboxed(
      `curl -sS -m 3 http://127.0.0.1:${port}/; echo curl=$?; (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null; echo tcp=$?`,
    );
    expect(result.stdout).not.toContain("reachable");
    expect(result.stdout).toMatch(/curl=[1-9]/);
    expect(result.stdout).toMatch(/tcp=[1-9]/);
  });

  it("stops a fork bomb with the process limit, within a bounded time", async () => {
    const { result, elapsedMs } = await sandboxed(
      "bomb() { bomb | bomb & }; bomb; sleep 2; ls /proc | grep -c '^[0-9]'",
      { timeoutMs: 8_000 },
    );
    expect(elapsedMs).toBeLessThan(15_000);
    expect(result.stderr).toMatch(/fork|Resource temporarily unavailable/i);
    // Whatever is still alive inside is under the cap (32 processes).
    const alive = Number(result.stdout.trim().split("\n").pop());
    if (Number.isFinite(alive)) expect(alive).toBeLessThanOrEqual(40);
  }, 30_000);

  it("stops an endless loop with the CPU-time limit, before the wall-clock timeout", async () => {
    const { result, elapsedMs } = await sandboxed("while :; do :; done", { timeoutMs: 25_000 });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode === 0).toBe(false);
    expect(elapsedMs).toBeLessThan(20_000);
  }, 30_000);

  it("a file written inside the workspace is visible outside", async () => {
    const { result, workspace } = await sandboxed("echo hi > out.txt && cat out.txt && pwd");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(workspace);
    expect(await readFile(`${workspace}/out.txt`, "utf8")).toBe("hi\n");
  });

  // bwrap's --dev is a tmpfs as large as half the host's memory, writable by the sandbox uid: without a cap a
  // command could park gigabytes of RAM in /dev or /dev/shm, past the /tmp size, the disk quota and RLIMIT_AS.
  it("cannot fill the host's memory through /dev or /dev/shm", async () => {
    const { result } = await sandboxed(
      "touch /dev/x; echo dev=$?; for i in 1 2; do head -c 40M /dev/zero > /dev/shm/f$i; done; echo shm=$(du -sm /dev/shm | cut -f1); test -w /dev/null && echo null=ok",
    );
    expect(result.stdout).toMatch(/dev=[1-9]/);
    expect(Number(/shm=(\d+)/.exec(result.stdout)?.[1])).toBeLessThanOrEqual(64);
    expect(result.stdout).toContain("null=ok");
  });

  it("sees a fresh /tmp and its own /proc: host files and processes are invisible", async () => {
    const marker = `toolgate-host-marker-${process.pid}`;
    await writeFile(path.join(os.tmpdir(), marker), "host");
    try {
      const { result } = await sandboxed("ls -A /tmp; echo pids=$(ls /proc | grep -c '^[0-9]')");
      expect(result.stdout).toMatch(/pids=\d/);
      expect(result.stdout).not.toContain(marker);
      expect(Number(/pids=(\d+)/.exec(result.stdout)?.[1])).toBeLessThan(10);
    } finally {
      await rm(path.join(os.tmpdir(), marker), { force: true });
    }
  });
});

describe("sandboxed exec fails closed", () => {
  it("refuses to run when bwrap cannot start, and never runs the command unsandboxed", async () => {
    const { workspace } = await makeSandboxDirs();
    const context = makeContext(workspace, { sandboxed: true, sandbox: { bwrapPath: "/nonexistent/bwrap" } });
    await expect(execTool.execute({ command: "echo ran > ran.txt" }, callOptions(context))).rejects.toMatchObject({
      code: "TOOL_NOT_AVAILABLE",
      message: expect.stringContaining("sandbox (bubblewrap) cannot start"),
    });
    expect(existsSync(`${workspace}/ran.txt`)).toBe(false);
  });
});
