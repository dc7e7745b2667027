// Test workspace roots hold exec layers: overlay mounts at <root>/.toolgate-exec/<workspace>/layers/<id>/merged
// while a sandbox-mode command runs (lib/tools/workspace-changes.ts). A server stopped or killed mid-command leaves
// its layer mounted (the next server on that root recovers it), and deleting the root then deletes through the
// mount and leaves the mount itself behind under /tmp. So a teardown unmounts the layers first.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** /proc/self/mountinfo spells spaces, tabs, newlines and backslashes in octal. */
const decode = (p: string) => p.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** Mount points at or below `dir` (its real path), deepest first. */
export function mountsUnder(dir: string): string[] {
  const real = fs.existsSync(dir) ? fs.realpathSync(dir) : dir;
  return fs
    .readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => decode(line.split(" ")[4] ?? ""))
    .filter((p) => p === real || p.startsWith(`${real}/`))
    .sort((a, b) => b.length - a.length);
}

/** The pid in a layer's owner record (lib/tools/overlay-journal.ts), for a mount at <layer>/merged. */
function layerOwnerPid(merged: string): number | null {
  try {
    return (
      (JSON.parse(fs.readFileSync(`${merged.replace(/\/merged$/, "")}/layer.json`, "utf8")) as { pid?: number }).pid ??
      null
    );
  } catch {
    return null;
  }
}

/**
 * Unmounts the layers under `root`; with `ownerPid`, only that (stopped) server's, so an app still running on the
 * same root keeps its own. Answers how many were unmounted.
 */
export function unmountLayers(root: string, { ownerPid }: { ownerPid?: number } = {}): number {
  let unmounted = 0;
  for (const mount of mountsUnder(root)) {
    if (ownerPid !== undefined && layerOwnerPid(mount) !== ownerPid) continue;
    try {
      execFileSync("umount", [mount], { stdio: "ignore" });
    } catch {
      try {
        execFileSync("umount", ["-l", mount], { stdio: "ignore" });
      } catch {
        continue;
      }
    }
    unmounted += 1;
  }
  return unmounted;
}

/**
 * After a test app's server process has exited: its layers under its root unmounted, and its egress socket
 * directories (named for its pid, lib/tools/sandbox-reaper.ts) removed.
 */
export function cleanUpAfterServer(root: string, pid: number): void {
  unmountLayers(root, { ownerPid: pid });
  const mine = new RegExp(`^toolgate-egress-[0-9a-f]{12}-${pid}-\\d+-`);
  for (const name of fs.readdirSync(os.tmpdir()).filter((n) => mine.test(n)))
    fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
}

/** Removes a workspace root once nothing is mounted below it (never deletes through a mount). */
export function removeWorkspaceRoot(root: string): void {
  unmountLayers(root);
  const left = mountsUnder(root);
  if (left.length > 0) throw new Error(`removeWorkspaceRoot: still mounted, not removed: ${left.join(", ")}`);
  fs.rmSync(root, { recursive: true, force: true });
}
