// The built app killed (SIGKILL) while a sandbox-mode command runs in its overlay layer: the restarted app unmounts
// and drops the layer before it serves, the workspace is as before the command, and the next command runs.
// (The crash points inside the apply are covered by tests/unit/tools/overlay-recovery.test.ts.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { prepareDatabase, newSqliteUrl } from "../support/databases";
import { signedIn, type HttpClient } from "../support/http-client";
import { readUiStream } from "../support/ui-stream";
import { removeWorkspaceRoot } from "../support/workspaces";
import { createDb } from "@/lib/db/client";
import { probeSandbox } from "@/lib/tools/sandbox";
import { overlaySupported } from "@/lib/tools/workspace-changes";

const ready = (await probeSandbox()).ok && (await overlaySupported());

function mountedUnder(dir: string): string[] {
  return fs
    .readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4] ?? "")
    .filter((p) => p.startsWith(dir));
}

async function until<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!ready)("exec layers after the server is killed mid-command", () => {
  const databaseUrl = newSqliteUrl();
  const workspaceRoot = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-ws-"));
  let app: RunningApp | undefined;
  afterAll(async () => {
    await app?.stop();
    // A failed run may leave the layer mounted: never delete through a mount.
    removeWorkspaceRoot(workspaceRoot);
    fs.rmSync(path.dirname(databaseUrl.slice("file:".length)), { recursive: true, force: true });
  });

  async function codingChat(member: HttpClient) {
    const sessionId = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    expect(
      (await member.json(`/api/sessions/${sessionId}`, { method: "PATCH", body: { mode: "coding" } })).status,
    ).toBe(200);
    return (command: string) =>
      member.fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          sessionId,
          message: { role: "user", parts: [{ type: "text", text: `/tool exec ${JSON.stringify({ command })}` }] },
        }),
      });
  }

  it("the restarted app drops the layer, the workspace is as before, and the next command runs", async () => {
    prepareDatabase(databaseUrl);
    const db = createDb(databaseUrl);
    app = await startApp({ databaseUrl, env: { WORKSPACE_ROOT: workspaceRoot } });
    const member = await signedIn(app.url, "member@example.com");
    const memberId = (await member.json("/api/me")).body.user.id as string;
    await db.policyVersion.create({
      data: {
        version: 2,
        document: { version: 2, modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } } } as never,
        comment: "layer recovery test",
      },
    });
    await db.$disconnect();

    const exec = await codingChat(member);
    await readUiStream(await exec("echo base > base.txt"));
    const workspace = fs.realpathSync(path.join(workspaceRoot, memberId));
    expect(fs.readFileSync(path.join(workspace, "base.txt"), "utf8")).toBe("base\n");

    // The command writes into its layer, then sleeps: the server is killed while the layer is mounted.
    const layers = path.join(path.dirname(workspace), ".toolgate-exec", path.basename(workspace), "layers");
    void exec("echo partial > partial.txt && rm base.txt && sleep 120").catch(() => undefined);
    const layer = await until("the command's layer", () => {
      const [id] = fs.existsSync(layers) ? fs.readdirSync(layers) : [];
      return id && fs.existsSync(path.join(layers, id, "upper", "partial.txt")) ? path.join(layers, id) : undefined;
    });
    process.kill(-app.process.pid!, "SIGKILL");
    await until("the app to die", () => app!.process.exitCode !== null || app!.process.signalCode !== null);
    expect(mountedUnder(layer)).toEqual([path.join(layer, "merged")]);

    app = await startApp({ databaseUrl, env: { WORKSPACE_ROOT: workspaceRoot } });
    expect(mountedUnder(workspaceRoot)).toEqual([]);
    expect(fs.readdirSync(layers)).toEqual([]);
    expect(fs.existsSync(path.join(workspace, "partial.txt"))).toBe(false);
    expect(fs.readFileSync(path.join(workspace, "base.txt"), "utf8")).toBe("base\n");
    expect(app.logs.join("")).toContain("exec layers recovered: 0 finished, 1 dropped");

    const again = await signedIn(app.url, "member@example.com");
    const next = await codingChat(again);
    await readUiStream(await next("cat base.txt > copy.txt"));
    expect(fs.readFileSync(path.join(workspace, "copy.txt"), "utf8")).toBe("base\n");
  });
});
