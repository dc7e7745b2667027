// What a command did to the workspace, and the way back. A sandboxed command does not write the workspace itself:
// it writes an overlay (kernel overlayfs, mounted by the root server; bubblewrap 0.8 has no --overlay) whose lower
// layer is the workspace and whose upper layer is a directory of this command's own. When it ends, the upper layer
// holds exactly what changed, so listing the changes and the quota cost what the command wrote, not how many files
// the workspace has. The changes are then moved into the workspace, and whatever they replace or delete is moved
// (renamed, never copied) into the command's trash, from which restoreCommand puts it back. Without root or
// overlayfs, commands write the workspace directly and their results say that no change list is kept.
import { execFile } from "node:child_process";
import { chmod, chown, lstat, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { replayMoves, writeApplyJournal, writeLayerOwner, type ApplyJournal } from "./overlay-journal";
import { KeyedTurns } from "./keyed-turns";
import { runningAsRoot } from "./workspace-owner";

const run = promisify(execFile);
/** Trash of the last this many commands per workspace is kept; older trash is dropped. */
export const TRASH_KEEP = 20;
/** Entries a tool result lists per kind; the counts are always complete. */
const LISTED = 100;

export type ChangedEntry = {
  path: string;
  kind: "file" | "directory" | "symlink" | "other";
  size: number;
  previousSize?: number;
};
export type CommandChanges = {
  created: ChangedEntry[];
  changed: ChangedEntry[];
  deleted: ChangedEntry[];
  counts: { created: number; changed: number; deleted: number };
  /** Bytes written by the command (the upper layer), the measure the quota watches while it runs. */
  writtenBytes: number;
  /** restoreCommand takes this id; null when nothing was replaced or deleted. */
  restoreId: string | null;
};

export type Overlay = { merged: string; upper: string; lower: string; dir: string; id: string };

// One command (or restore) at a time per workspace on this instance: each applies its overlay onto the workspace
// the next one mounts.
export const workspaceTurns = new KeyedTurns();
export function inWorkspaceTurn<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  return workspaceTurns.run(dir, fn);
}

let overlaySupport: Promise<boolean> | undefined;
/** overlayfs needs a root server (it mounts on the host) and the kernel's overlay file system. */
export function overlaySupported(): Promise<boolean> {
  overlaySupport ??= (async () =>
    runningAsRoot() && /\boverlay\b/.test(await readFile("/proc/filesystems", "utf8").catch(() => "")))();
  return overlaySupport;
}

/** Where a workspace's per-command layers and trash live: beside the workspaces, never inside one. */
export function stateDir(workspace: string): string {
  return path.join(path.dirname(workspace), ".toolgate-exec", path.basename(workspace));
}

function safeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 80) || "call";
}

/** Mounts the overlay for one command; the caller binds `merged` at the workspace's path inside the sandbox. */
export async function mountOverlay(workspace: string, callId: string): Promise<Overlay | null> {
  if (!(await overlaySupported()) || /[,:\\]/.test(workspace)) return null;
  const id = `${Date.now().toString(36)}-${safeId(callId)}`;
  const base = stateDir(workspace);
  const dir = path.join(base, "layers", id);
  const upper = path.join(dir, "upper");
  const work = path.join(dir, "work");
  const merged = path.join(dir, "merged");
  // The command's uid must reach `merged`: every directory above it may be passed, not listed.
  for (const d of [path.dirname(base), base, path.join(base, "layers"), dir]) {
    await mkdir(d, { recursive: true, mode: 0o711 });
    await chmod(d, 0o711);
  }
  // Before anything is mounted: a layer names the process it belongs to (overlay-journal.ts).
  await writeLayerOwner(dir, workspace);
  for (const d of [upper, work, merged]) await mkdir(d, { mode: 0o700 });
  // The merged root takes the upper root's owner and mode: the workspace's own.
  const ws = await stat(workspace);
  await chown(upper, ws.uid, ws.gid);
  await chmod(upper, ws.mode & 0o7777);
  try {
    await run("mount", [
      "-t",
      "overlay",
      "overlay",
      "-o",
      `lowerdir=${workspace},upperdir=${upper},workdir=${work}`,
      merged,
    ]);
  } catch {
    await rm(dir, { recursive: true, force: true });
    return null;
  }
  return { merged, upper, lower: workspace, dir, id };
}

/** Unmounts a layer (lazily when it is busy); one left mounted is left to recovery (overlay-recovery.ts). */
export async function unmountOverlay({ merged }: Pick<Overlay, "merged">): Promise<void> {
  await run("umount", [merged]).catch(() => run("umount", ["-l", merged]).catch(() => undefined));
}

function kindOf(st: { isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean }): ChangedEntry["kind"] {
  return st.isDirectory() ? "directory" : st.isFile() ? "file" : st.isSymbolicLink() ? "symlink" : "other";
}

const isWhiteout = (st: { isCharacterDevice(): boolean; rdev: number }) => st.isCharacterDevice() && st.rdev === 0;

async function names(dir: string): Promise<Set<string>> {
  return new Set(await readdir(dir).catch(() => [] as string[]));
}

/** Bytes below a path (allocated blocks), for the few paths a command deleted or replaced. */
async function treeBytes(p: string): Promise<number> {
  const st = await lstat(p).catch(() => null);
  if (!st) return 0;
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of await names(p)) total += await treeBytes(path.join(p, name));
  return total;
}

type Plan = { created: ChangedEntry[]; changed: ChangedEntry[]; deleted: ChangedEntry[]; writtenBytes: number };

/** Reads the upper layer (and, for directories it touched, the merged view) while the overlay is still mounted. */
export async function diffOverlay(overlay: Overlay): Promise<Plan> {
  const plan: Plan = { created: [], changed: [], deleted: [], writtenBytes: 0 };
  async function walk(rel: string): Promise<void> {
    const upperDir = path.join(overlay.upper, rel);
    const lowerDir = path.join(overlay.lower, rel);
    const lowerIsDir = (await lstat(lowerDir).catch(() => null))?.isDirectory() ?? false;
    if (lowerIsDir) {
      // What the lower directory had and the merged view no longer shows was deleted (a whiteout or an opaque
      // directory, which overlayfs records in ways only the merged view reads the same).
      const seen = await names(path.join(overlay.merged, rel));
      for (const name of await names(lowerDir)) {
        if (seen.has(name)) continue;
        const p = path.join(rel, name);
        const st = await lstat(path.join(overlay.lower, p));
        plan.deleted.push({ path: p, kind: kindOf(st), size: await treeBytes(path.join(overlay.lower, p)) });
      }
    }
    for (const name of await names(upperDir)) {
      const p = path.join(rel, name);
      const st = await lstat(path.join(overlay.upper, p));
      if (isWhiteout(st)) continue;
      const before = await lstat(path.join(overlay.lower, p)).catch(() => null);
      if (st.isDirectory() && before?.isDirectory()) {
        await walk(p);
        continue;
      }
      const size = st.isDirectory() ? await treeBytes(path.join(overlay.upper, p)) : st.size;
      plan.writtenBytes += size;
      if (!before) plan.created.push({ path: p, kind: kindOf(st), size });
      else
        plan.changed.push({
          path: p,
          kind: kindOf(st),
          size,
          previousSize: before.isDirectory() ? await treeBytes(path.join(overlay.lower, p)) : before.size,
        });
    }
  }
  await walk("");
  return plan;
}

/** Bytes in the upper layer so far: what a running command has written (the quota's measure while it runs). */
export async function upperBytes(overlay: Overlay): Promise<number> {
  return treeBytes(overlay.upper);
}

async function moveInto(from: string, to: string): Promise<void> {
  await mkdir(path.dirname(to), { recursive: true });
  await rename(from, to);
}

/**
 * After the command (overlay unmounted): what it replaced or deleted moves into its trash, with a manifest, and
 * what it wrote moves into the workspace. The moves are journaled first, so a server that dies on the way leaves a
 * layer that recovery finishes (overlay-recovery.ts). Returns the listing for the tool result. `beforeMove` is the
 * crash tests' way to stop before a given move.
 */
export async function applyOverlay(
  overlay: Overlay,
  plan: Plan,
  options: { beforeMove?: (index: number) => void } = {},
): Promise<CommandChanges> {
  const replaced = [...plan.deleted, ...plan.changed];
  const journal: ApplyJournal = {
    trashId: overlay.id,
    manifest: { deleted: plan.deleted, changed: plan.changed, created: plan.created },
    moves: [
      ...replaced.map((e) => ({ kind: "to-trash" as const, path: e.path })),
      ...[...plan.changed, ...plan.created].map((e) => ({ kind: "from-upper" as const, path: e.path })),
    ],
  };
  await writeApplyJournal(overlay.dir, journal);
  await finishApply(overlay.lower, overlay.dir, journal, options.beforeMove);
  const cut = (list: ChangedEntry[]) => list.slice(0, LISTED);
  return {
    created: cut(plan.created),
    changed: cut(plan.changed),
    deleted: cut(plan.deleted),
    counts: { created: plan.created.length, changed: plan.changed.length, deleted: plan.deleted.length },
    writtenBytes: plan.writtenBytes,
    restoreId: replaced.length > 0 ? overlay.id : null,
  };
}

/** Makes (or finishes) a journaled apply, then drops the layer. Each step may run again after a crash. */
export async function finishApply(
  workspace: string,
  layerDir: string,
  journal: ApplyJournal,
  beforeMove?: (index: number) => void,
): Promise<void> {
  const trash = path.join(stateDir(workspace), "trash", journal.trashId);
  if (journal.manifest.deleted.length + journal.manifest.changed.length > 0) {
    await mkdir(trash, { recursive: true, mode: 0o700 });
    await writeFile(path.join(trash, ".manifest.json"), JSON.stringify(journal.manifest));
  }
  await replayMoves(journal, { workspace, upper: path.join(layerDir, "upper"), trash }, beforeMove);
  await rm(layerDir, { recursive: true, force: true });
  await pruneTrash(workspace);
}

/** Drops a failed or stopped command's layer without touching the workspace. */
export async function discardOverlay(overlay: Overlay): Promise<void> {
  await unmountOverlay(overlay);
  await rm(overlay.dir, { recursive: true, force: true });
}

async function pruneTrash(workspace: string): Promise<void> {
  const dir = path.join(stateDir(workspace), "trash");
  const ids = [...(await names(dir))].sort();
  for (const id of ids.slice(0, Math.max(0, ids.length - TRASH_KEEP)))
    await rm(path.join(dir, id), { recursive: true, force: true });
}

/** The commands whose trash is kept, newest first, with what each replaced or deleted. */
export async function listRestorable(
  workspace: string,
): Promise<Array<{ restoreId: string; deleted: ChangedEntry[]; changed: ChangedEntry[] }>> {
  const dir = path.join(stateDir(workspace), "trash");
  const out = [];
  for (const id of [...(await names(dir))].sort().reverse()) {
    const manifest = JSON.parse(await readFile(path.join(dir, id, ".manifest.json"), "utf8").catch(() => "{}")) as {
      deleted?: ChangedEntry[];
      changed?: ChangedEntry[];
    };
    out.push({ restoreId: id, deleted: manifest.deleted ?? [], changed: manifest.changed ?? [] });
  }
  return out;
}

/**
 * Whether every directory between the workspace and `rel` is a real directory (never a link), creating missing
 * ones as the workspace's owner. The server moves files as root: a parent a later command swapped for a link to
 * /etc must never carry a restored file there.
 */
async function realParents(workspace: string, rel: string): Promise<boolean> {
  const owner = await stat(workspace);
  let dir = workspace;
  for (const part of path
    .dirname(rel)
    .split(path.sep)
    .filter((p) => p !== "" && p !== ".")) {
    if (part === "..") return false;
    dir = path.join(dir, part);
    const st = await lstat(dir).catch(() => null);
    if (!st) {
      await mkdir(dir, { mode: 0o755 });
      await chown(dir, owner.uid, owner.gid);
    } else if (!st.isDirectory()) return false;
  }
  return true;
}

/**
 * Puts back what one command deleted or replaced. A path that exists again is first moved into a trash of its own
 * (so a restore loses nothing either, and can itself be undone). Returns the restored paths.
 */
export async function restoreCommand(
  workspace: string,
  restoreId: string,
): Promise<{ restored: string[]; skipped: string[]; restoreId: string | null }> {
  if (!/^[A-Za-z0-9_-]+$/.test(restoreId)) throw new Error("not a restore id");
  const trash = path.join(stateDir(workspace), "trash", restoreId);
  const manifest = JSON.parse(await readFile(path.join(trash, ".manifest.json"), "utf8")) as {
    deleted: ChangedEntry[];
    changed: ChangedEntry[];
  };
  const entries = [...manifest.deleted, ...manifest.changed];
  const undoId = `${Date.now().toString(36)}-restore-${restoreId}`.slice(0, 120);
  const undo = path.join(stateDir(workspace), "trash", undoId);
  const displaced: ChangedEntry[] = [];
  const restored: string[] = [];
  const skipped: string[] = [];
  for (const entry of entries) {
    // Manifest paths are relative and were produced by diffOverlay; a forged one never leaves the workspace.
    const target = path.resolve(workspace, entry.path);
    if (!target.startsWith(`${workspace}${path.sep}`)) continue;
    const source = path.join(trash, "files", entry.path);
    if (!(await lstat(source).catch(() => null))) continue;
    if (!(await realParents(workspace, entry.path))) {
      skipped.push(entry.path);
      continue;
    }
    const current = await lstat(target).catch(() => null);
    if (current) {
      displaced.push({
        path: entry.path,
        kind: kindOf(current),
        size: current.isDirectory() ? await treeBytes(target) : current.size,
      });
      await moveInto(target, path.join(undo, "files", entry.path));
    }
    await moveInto(source, target);
    restored.push(entry.path);
  }
  if (displaced.length > 0)
    await writeFile(
      path.join(undo, ".manifest.json"),
      JSON.stringify({ deleted: [], changed: displaced, created: [] }),
    );
  // What could not go back stays in the trash (a later restore, once the path is a directory again, finds it).
  if (skipped.length === 0) await rm(trash, { recursive: true, force: true });
  return { restored, skipped, restoreId: displaced.length > 0 ? undoId : null };
}
