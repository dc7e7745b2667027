// Layers a dead server left behind (overlay-journal.ts): before each command mounts a layer, and for every
// workspace when the server starts. A layer whose apply was journaled is finished, so the workspace ends as after
// the command (and its trash restores the before state); any other is dropped, so it ends as before. A layer that
// a live process owns, or whose record names another workspace, is left alone.
import { readdir, readFile, realpath, rm, stat } from "node:fs/promises";
import path from "node:path";
import { ownerState, readApplyJournal, readLayerOwner } from "./overlay-journal";
import { finishApply, inWorkspaceTurn, overlaySupported, stateDir, unmountOverlay } from "./workspace-changes";
import { forgetUsage } from "./workspace-quota";

/** A layer without an owner record is dropped only once this old: younger, it may be one being mounted now. */
const UNRECORDED_GRACE_MS = 60_000;

export type Recovered = { finished: number; dropped: number; leftAlone: number };

/** /proc/self/mountinfo spells spaces, tabs, newlines and backslashes in octal. */
function mountinfoPath(p: string): string {
  return p.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`);
}

async function isMounted(p: string): Promise<boolean> {
  const info = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  const wanted = mountinfoPath(p);
  return info.split("\n").some((line) => line.split(" ")[4] === wanted);
}

/** Call within the workspace's turn (inWorkspaceTurn): a layer of this process found then is a failed apply's. */
export async function recoverLayers(workspace: string): Promise<Recovered> {
  const out: Recovered = { finished: 0, dropped: 0, leftAlone: 0 };
  const layers = path.join(stateDir(workspace), "layers");
  for (const id of await readdir(layers).catch(() => [] as string[])) {
    const dir = path.join(layers, id);
    const owner = await readLayerOwner(dir);
    const young = !owner && Date.now() - ((await stat(dir).catch(() => null))?.mtimeMs ?? 0) < UNRECORDED_GRACE_MS;
    const held = owner && (owner.workspace !== workspace || ["alive", "elsewhere"].includes(ownerState(owner)));
    if (young || held) {
      out.leftAlone += 1;
      continue;
    }
    const merged = path.join(dir, "merged");
    if (await isMounted(merged)) await unmountOverlay({ merged });
    // Never delete through a mount: what is still mounted stays for the next try.
    if (await isMounted(merged)) {
      out.leftAlone += 1;
      continue;
    }
    const journal = await readApplyJournal(dir);
    if (journal) {
      await finishApply(workspace, dir, journal);
      out.finished += 1;
    } else {
      await rm(dir, { recursive: true, force: true });
      out.dropped += 1;
    }
  }
  // The kept usage figure never saw a finished apply's changes: the next check measures the workspace again.
  if (out.finished > 0) await forgetUsage(workspace);
  return out;
}

/** At start: every workspace under the root that has layers. */
export async function recoverAllLayers(workspaceRoot: string): Promise<Recovered> {
  const total: Recovered = { finished: 0, dropped: 0, leftAlone: 0 };
  if (!(await overlaySupported())) return total;
  // Layers record the workspace's real path (ensureWorkspace resolves it).
  const root = await realpath(workspaceRoot).catch(() => null);
  if (!root) return total;
  for (const name of await readdir(path.join(root, ".toolgate-exec")).catch(() => [] as string[])) {
    const workspace = path.join(root, name);
    const one = await inWorkspaceTurn(workspace, () => recoverLayers(workspace));
    total.finished += one.finished;
    total.dropped += one.dropped;
    total.leftAlone += one.leftAlone;
  }
  return total;
}
