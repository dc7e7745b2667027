// What makes a command's overlay layer survive a server that dies mid-command or mid-apply. Two files in the
// layer's directory:
// - layer.json, written before the mount: the process that owns the layer (host, pid and the process's start time,
//   so a pid the kernel handed to another process later is not mistaken for the owner) and the workspace it is for.
// - apply.json, renamed into place after the unmount and before the first move: every move of the apply, in order.
// Every move can be made again: a move whose source is gone, or whose trash copy is already there, is skipped. So a
// layer whose owner is gone is finished (journal) or dropped (no journal), and the workspace ends before or after the
// command, never between.
import { readFileSync } from "node:fs";
import { lstat, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";

const LAYER_RECORD = "layer.json";
const APPLY_JOURNAL = "apply.json";

const ownerSchema = z.object({
  host: z.string(),
  pid: z.number().int().positive(),
  startTime: z.string(),
  workspace: z.string(),
});
export type LayerOwner = z.infer<typeof ownerSchema>;

const entrySchema = z.object({
  path: z.string(),
  kind: z.enum(["file", "directory", "symlink", "other"]),
  size: z.number(),
  previousSize: z.number().optional(),
});
const journalSchema = z.object({
  trashId: z.string().regex(/^[A-Za-z0-9_-]+$/),
  manifest: z.object({ deleted: z.array(entrySchema), changed: z.array(entrySchema), created: z.array(entrySchema) }),
  // In order: what the command replaced or deleted goes to the trash first, then what it wrote comes in.
  moves: z.array(z.object({ kind: z.enum(["to-trash", "from-upper"]), path: z.string() })),
});
export type ApplyJournal = z.infer<typeof journalSchema>;

/** The kernel's start time of a process (clock ticks since boot, field 22 of /proc/<pid>/stat), or null if gone. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

let self: LayerOwner | undefined;
function selfOwner(workspace: string): LayerOwner {
  self ??= {
    host: os.hostname(),
    pid: process.pid,
    startTime: processStartTime(process.pid) ?? "unknown",
    workspace: "",
  };
  return { ...self, workspace };
}

export async function writeLayerOwner(layerDir: string, workspace: string): Promise<void> {
  await writeFile(path.join(layerDir, LAYER_RECORD), JSON.stringify(selfOwner(workspace)), { mode: 0o600 });
}

/** The layer's owner record; null when there is none or it cannot be read (a layer from before records, or torn). */
export async function readLayerOwner(layerDir: string): Promise<LayerOwner | null> {
  const text = await readFile(path.join(layerDir, LAYER_RECORD), "utf8").catch(() => null);
  if (text === null) return null;
  try {
    return ownerSchema.parse(JSON.parse(text));
  } catch {
    return null;
  }
}

export type OwnerState = "self" | "alive" | "gone" | "elsewhere";
/** Whether the process that owns a layer still runs: only a live process on this host holds a layer. */
export function ownerState(owner: LayerOwner): OwnerState {
  if (owner.host !== os.hostname()) return "elsewhere";
  const me = selfOwner(owner.workspace);
  if (owner.pid === me.pid && owner.startTime === me.startTime) return "self";
  return processStartTime(owner.pid) === owner.startTime ? "alive" : "gone";
}

/** Written whole or not at all (rename), before the apply's first move. */
export async function writeApplyJournal(layerDir: string, journal: ApplyJournal): Promise<void> {
  const tmp = path.join(layerDir, `${APPLY_JOURNAL}.tmp`);
  await writeFile(tmp, JSON.stringify(journal), { mode: 0o600 });
  await rename(tmp, path.join(layerDir, APPLY_JOURNAL));
}

export async function readApplyJournal(layerDir: string): Promise<ApplyJournal | null> {
  const text = await readFile(path.join(layerDir, APPLY_JOURNAL), "utf8").catch(() => null);
  if (text === null) return null;
  try {
    return journalSchema.parse(JSON.parse(text));
  } catch {
    return null;
  }
}

const exists = async (p: string) => (await lstat(p).catch(() => null)) !== null;

/** A journal path below `root`, or null for one that would leave it. */
function inside(root: string, rel: string): string | null {
  const target = path.resolve(root, rel);
  return target.startsWith(`${root}${path.sep}`) ? target : null;
}

export type ApplyRoots = { workspace: string; upper: string; trash: string };

/**
 * Makes the journal's moves, each only if it is still to be made. `beforeMove` lets the crash tests stop the apply
 * before any one move, as a server killed at that moment would.
 */
export async function replayMoves(
  journal: ApplyJournal,
  roots: ApplyRoots,
  beforeMove?: (index: number) => void,
): Promise<void> {
  for (const [index, move] of journal.moves.entries()) {
    beforeMove?.(index);
    const inTrash = inside(path.join(roots.trash, "files"), move.path);
    const inWorkspace = inside(roots.workspace, move.path);
    const inUpper = inside(roots.upper, move.path);
    if (!inTrash || !inWorkspace || !inUpper) continue;
    const [from, to] = move.kind === "to-trash" ? [inWorkspace, inTrash] : [inUpper, inWorkspace];
    // Already in the trash: the workspace path may hold the command's new file by now, which must stay.
    if (move.kind === "to-trash" && (await exists(to))) continue;
    if (!(await exists(from))) continue;
    await mkdir(path.dirname(to), { recursive: true });
    await rename(from, to);
  }
}
