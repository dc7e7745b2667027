// A sandbox that outlived the server that started it (the server killed before bwrap's --die-with-parent took hold)
// keeps running its command, its socat egress bridge and the overlay it holds busy, and its egress socket directory
// stays. The built app, at start, kills the sandboxes of its workspace root whose server is gone and removes their
// egress directories, and leaves alone those of a server that still runs (another instance on the same root) and
// those of another root. The stand-in orphans run under a shell of the test's that only waits for them (the reaper
// goes by the tag, not by the parent; a parent that reaps them leaves no zombie where init does not reap).
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { newSqliteUrl, prepareDatabase } from "../support/databases";
import { until } from "../support/approvals-helpers";
import { removeWorkspaceRoot } from "../support/workspaces";
import { processStartTime } from "@/lib/tools/overlay-journal";
import { buildSandboxArgv, probeSandbox } from "@/lib/tools/sandbox";
import { egressDirPrefix, sandboxScope, sandboxTagArgs, type ServerIdentity } from "@/lib/tools/sandbox-reaper";

const ready = (await probeSandbox()).ok;

/** Pids of the bwrap processes whose command line holds `text` as one argument. */
function processesWith(text: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const argv = fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
        return path.basename(argv[0] ?? "") === "bwrap" && argv.includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Every descendant of `pid` (by parent pid). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parents) {
      if (parent !== p) continue;
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

const running = (pid: number) =>
  processStartTime(pid) !== null && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));

describe.skipIf(!ready)("sandboxes a dead server left, reaped at start", () => {
  const databaseUrl = newSqliteUrl();
  const workspaceRoot = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-ws-"));
  const cleanups: Array<() => void> = [];
  let app: RunningApp | undefined;
  afterAll(async () => {
    await app?.stop();
    for (const cleanup of cleanups.reverse()) cleanup();
    removeWorkspaceRoot(workspaceRoot);
    fs.rmSync(path.dirname(databaseUrl.slice("file:".length)), { recursive: true, force: true });
  });

  /** A server that ran and is gone: a process's pid and start time, the process ended. */
  async function deadServer(): Promise<ServerIdentity> {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    const pid = child.pid!;
    const startTime = await until("the stand-in server", async () => processStartTime(pid), 5_000, 20);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    return { pid, startTime };
  }

  /** An egress socket directory named for `server`, its socket listening (as the proxy's was). */
  async function egressDir(server: ServerIdentity, scope: string): Promise<{ dir: string; socketPath: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), egressDirPrefix({ server, scope })));
    fs.chmodSync(dir, 0o755);
    const socketPath = path.join(dir, "proxy.sock");
    const listener = net.createServer((socket) => socket.destroy());
    await new Promise<void>((r) => listener.listen(socketPath, () => r()));
    fs.chmodSync(socketPath, 0o666);
    cleanups.push(() => {
      listener.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    return { dir, socketPath };
  }

  /** A sandbox tagged as `server`'s, with egress (its socat bridge), not started by the app. */
  async function orphanSandbox(
    server: ServerIdentity,
    scope: string,
    socketPath: string,
  ): Promise<{ tag: string; outer: number }> {
    const workspace = fs.mkdtempSync(path.join(workspaceRoot, "orphan-"));
    fs.chmodSync(workspaceRoot, 0o755);
    fs.chmodSync(workspace, 0o777);
    const argv = buildSandboxArgv({
      command: "sleep 300",
      workspaceDir: workspace,
      config: { egress: { socketPath } },
    });
    const at = argv.indexOf("--unsetenv");
    const tagArgs = sandboxTagArgs({ server, scope });
    argv.splice(at, 2, ...tagArgs);
    const tag = tagArgs[1]!;
    spawn("/bin/sh", ["-c", '"$@" >/dev/null 2>&1 & wait', "sh", ...argv], { stdio: "ignore", detached: true }).unref();
    const outer = await until(
      "the orphan sandbox",
      async () => processesWith(tag).sort((a, b) => a - b)[0],
      10_000,
      50,
    );
    cleanups.push(() => {
      for (const pid of processesWith(tag)) process.kill(pid, "SIGKILL");
    });
    // Its command and socat bridge are up.
    await until(
      "the sandbox's command and egress bridge",
      async () => {
        const names = descendants(outer).map((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0]);
        return names.includes("sleep") && names.some((n) => n?.endsWith("socat")) ? true : null;
      },
      10_000,
      50,
    );
    return { tag, outer };
  }

  it("kills the dead server's sandbox (command and socat with it) and removes its egress directory; a live server's and another root's stay", async () => {
    prepareDatabase(databaseUrl);
    const scope = sandboxScope(workspaceRoot);
    const otherScope = sandboxScope(path.join(os.tmpdir(), "toolgate-another-root"));
    const dead = await deadServer();
    // The test process stands in for another instance still serving the same root.
    const alive: ServerIdentity = { pid: process.pid, startTime: processStartTime(process.pid)! };

    const deadEgress = await egressDir(dead, scope);
    const liveEgress = await egressDir(alive, scope);
    const otherRootEgress = await egressDir(dead, otherScope);
    const orphan = await orphanSandbox(dead, scope, deadEgress.socketPath);
    const orphanTree = [orphan.outer, ...descendants(orphan.outer)];
    const live = await orphanSandbox(alive, scope, liveEgress.socketPath);
    const otherRoot = await orphanSandbox(dead, otherScope, otherRootEgress.socketPath);
    expect(orphanTree.length).toBeGreaterThanOrEqual(4); // outer bwrap, inner bwrap, sh, socat, sleep

    app = await startApp({ databaseUrl, env: { WORKSPACE_ROOT: workspaceRoot } });

    expect(orphanTree.filter(running)).toEqual([]);
    expect(fs.existsSync(deadEgress.dir)).toBe(false);
    expect(app.logs.join("")).toMatch(
      /a stopped server's sandboxes reaped: 2 process\(es\) killed, 1 egress director\(ies\) removed/,
    );
    expect(processesWith(live.tag).length).toBe(2);
    expect(processesWith(otherRoot.tag).length).toBe(2);
    expect(fs.existsSync(liveEgress.dir)).toBe(true);
    expect(fs.existsSync(otherRootEgress.dir)).toBe(true);
  });
});
