// A server that dies while a command's overlay layer is mounted or half applied: the next command (or the next
// start) leaves the workspace as before the command or as after it, never between. Real overlayfs mounts (the
// server runs as root); the crash is a throw before one of the apply's moves, or a layer record naming a process
// that is gone, which is what a killed server leaves.
import { spawn } from "node:child_process";
import { lstat, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { processStartTime, readLayerOwner } from "@/lib/tools/overlay-journal";
import { recoverAllLayers, recoverLayers } from "@/lib/tools/overlay-recovery";
import {
  applyOverlay,
  diffOverlay,
  mountOverlay,
  overlaySupported,
  restoreCommand,
  stateDir,
  unmountOverlay,
  type Overlay,
} from "@/lib/tools/workspace-changes";
import { makeSandboxDirs } from "./support/tool-context";

const supported = await overlaySupported();
const mounted: Overlay[] = [];
afterEach(async () => {
  for (const overlay of mounted.splice(0)) await unmountOverlay(overlay);
});

/** Every file under dir with its content (directories as "<dir>"), skipping nothing. */
async function snapshot(dir: string, rel = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(path.join(dir, rel))).sort()) {
    const p = path.join(rel, name);
    const st = await lstat(path.join(dir, p));
    if (st.isDirectory()) Object.assign(out, { [p]: "<dir>" }, await snapshot(dir, p));
    else out[p] = await readFile(path.join(dir, p), "utf8");
  }
  return out;
}

async function workspaceWithFiles() {
  const { workspace } = await makeSandboxDirs();
  await writeFile(path.join(workspace, "keep.txt"), "keep\n");
  await writeFile(path.join(workspace, "old.txt"), "before\n");
  await writeFile(path.join(workspace, "gone.txt"), "doomed\n");
  await mkdir(path.join(workspace, "dir"));
  await writeFile(path.join(workspace, "dir", "inner.txt"), "inner\n");
  return workspace;
}

/** What a command does, written through the mounted view as the sandbox would: 2 deletions, 1 change, 1 creation. */
async function runCommand(workspace: string): Promise<Overlay> {
  const overlay = await mountOverlay(workspace, "call-1");
  if (!overlay) throw new Error("overlay did not mount");
  mounted.push(overlay);
  await writeFile(path.join(overlay.merged, "old.txt"), "after\n");
  await writeFile(path.join(overlay.merged, "new.txt"), "fresh\n");
  await rm(path.join(overlay.merged, "gone.txt"));
  await rm(path.join(overlay.merged, "dir"), { recursive: true });
  return overlay;
}

const AFTER = { "keep.txt": "keep\n", "new.txt": "fresh\n", "old.txt": "after\n" };

/** A pid that existed and is gone: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

async function forgeOwner(overlay: Overlay, owner: Record<string, unknown>) {
  const current = await readLayerOwner(overlay.dir);
  await writeFile(path.join(overlay.dir, "layer.json"), JSON.stringify({ ...current, ...owner }));
}

async function isMounted(p: string) {
  return (await readFile("/proc/self/mountinfo", "utf8")).split("\n").some((line) => line.split(" ")[4] === p);
}

describe.skipIf(!supported)("exec layers after a crash", () => {
  // Five moves: dir and gone.txt and old.txt to the trash, then old.txt and new.txt in from the layer.
  it.each([0, 1, 2, 3, 4])(
    "a crash before move %i: the apply is finished, and the restore gives the before state",
    async (at) => {
      const workspace = await workspaceWithFiles();
      const before = await snapshot(workspace);
      const overlay = await runCommand(workspace);
      const plan = await diffOverlay(overlay);
      await unmountOverlay(overlay);
      const crash = new Error("killed");
      await expect(
        applyOverlay(overlay, plan, {
          beforeMove: (i) => {
            if (i === at) throw crash;
          },
        }),
      ).rejects.toBe(crash);
      expect(await snapshot(workspace)).not.toEqual(AFTER); // between the two states
      await forgeOwner(overlay, { pid: await deadPid() });

      expect(await recoverLayers(workspace)).toEqual({ finished: 1, dropped: 0, leftAlone: 0 });
      expect(await snapshot(workspace)).toEqual(AFTER);
      expect(await readdir(path.join(stateDir(workspace), "layers"))).toEqual([]);
      const restored = await restoreCommand(workspace, overlay.id);
      expect(restored.restored.sort()).toEqual(["dir", "gone.txt", "old.txt"]);
      expect(await snapshot(workspace)).toEqual({ ...before, "new.txt": "fresh\n" });
    },
  );

  it("a crash while the command ran (no journal): the layer is dropped and the workspace is as before", async () => {
    const workspace = await workspaceWithFiles();
    const before = await snapshot(workspace);
    const overlay = await runCommand(workspace);
    await forgeOwner(overlay, { pid: await deadPid() });
    // Still mounted, as a killed server leaves it: recovery unmounts before it deletes anything.
    expect(await isMounted(overlay.merged)).toBe(true);
    expect(await recoverLayers(workspace)).toEqual({ finished: 0, dropped: 1, leftAlone: 0 });
    expect(await isMounted(overlay.merged)).toBe(false);
    expect(await snapshot(workspace)).toEqual(before);
    expect(await readdir(path.join(stateDir(workspace), "layers"))).toEqual([]);
  });

  it("a layer whose owner still runs, or whose record names another workspace, is left alone", async () => {
    const workspace = await workspaceWithFiles();
    const before = await snapshot(workspace);
    const overlay = await runCommand(workspace);
    const sleeper = spawn("sleep", ["30"]);
    try {
      await forgeOwner(overlay, { pid: sleeper.pid, startTime: processStartTime(sleeper.pid!) });
      expect(await recoverLayers(workspace)).toEqual({ finished: 0, dropped: 0, leftAlone: 1 });
      expect(await isMounted(overlay.merged)).toBe(true);
      // The same pid with another start time is a process the kernel reused the number for: not the owner.
      await forgeOwner(overlay, { pid: await deadPid(), workspace: "/elsewhere/workspace" });
      expect(await recoverLayers(workspace)).toEqual({ finished: 0, dropped: 0, leftAlone: 1 });
      await forgeOwner(overlay, { pid: sleeper.pid, startTime: "1", workspace });
      expect(await recoverLayers(workspace)).toEqual({ finished: 0, dropped: 1, leftAlone: 0 });
      expect(await snapshot(workspace)).toEqual(before);
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  it("a forged journal cannot move anything outside the workspace", async () => {
    const { workspace, outside } = await makeSandboxDirs();
    await writeFile(path.join(outside, "secret.txt"), "secret\n");
    const overlay = await mountOverlay(workspace, "call-2");
    mounted.push(overlay!);
    await unmountOverlay(overlay!);
    const escape = path.relative(workspace, path.join(outside, "secret.txt"));
    await writeFile(
      path.join(overlay!.dir, "apply.json"),
      JSON.stringify({
        trashId: "x1",
        manifest: { deleted: [], changed: [], created: [] },
        moves: [
          { kind: "to-trash", path: escape },
          { kind: "from-upper", path: "../../../etc/x" },
        ],
      }),
    );
    await forgeOwner(overlay!, { pid: await deadPid() });
    expect((await recoverLayers(workspace)).finished).toBe(1);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("secret\n");
  });

  it("at start, every workspace under the root is recovered", async () => {
    const workspace = await workspaceWithFiles();
    const overlay = await runCommand(workspace);
    const plan = await diffOverlay(overlay);
    await unmountOverlay(overlay);
    await applyOverlay(overlay, plan, {
      beforeMove: (i) => {
        if (i === 2) throw new Error("killed");
      },
    }).catch(() => undefined);
    await forgeOwner(overlay, { pid: await deadPid() });
    expect(await recoverAllLayers(path.dirname(workspace))).toEqual({ finished: 1, dropped: 0, leftAlone: 0 });
    expect(await snapshot(workspace)).toEqual(AFTER);
  });
});
