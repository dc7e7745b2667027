// The per-workspace disk quota. Checked before every command and every write tool call: a walk of the
// workspace with lstat (links are never followed, directories are opened through their parent's descriptor), stopping as soon as the quota or the entry budget is passed.
// While a command runs, watchQuota re-measures the workspace every QUOTA_POLL_MS and stops the command once it is
// over: a loop writing file after file (each under the sandbox's file-size limit, each process with its own CPU
// limit) would otherwise fill the host's disk within the wall-time limit. It stays a soft quota: a command may pass
// it by what it writes in one polling interval, and the next command or write is refused until files are deleted.
import { constants } from "node:fs";
import { lstat, mkdir, open, opendir, readFile, rm, writeFile, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@/lib/errors";
import { KeyedTurns } from "./keyed-turns";
import { stateDir } from "./workspace-changes";

const MAX_ENTRIES = 200_000;

const MAX_DEPTH = 256;
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Bytes used under dir (allocated blocks), or Infinity once past `stopAfter` bytes, MAX_ENTRIES entries or
 * MAX_DEPTH levels. Each directory is opened through its parent's descriptor without following a link
 * (/proc/self/fd/N/name, as in workspace-open.ts): a directory a running command swaps for a symlink to / is
 * skipped, never walked.
 */
export async function workspaceUsage(dir: string, stopAfter: number): Promise<number> {
  let total = 0;
  let entries = 0;
  const over = Symbol("over");
  async function walk(handle: FileHandle, depth: number): Promise<void> {
    if (depth > MAX_DEPTH) throw over;
    const listing = await opendir(`/proc/self/fd/${handle.fd}`).catch(() => null);
    if (!listing) return;
    for await (const entry of listing) {
      entries += 1;
      if (entries > MAX_ENTRIES) throw over;
      const at = `/proc/self/fd/${handle.fd}/${entry.name}`;
      const st = await lstat(at).catch(() => null);
      if (!st) continue;
      total += st.blocks * 512;
      if (total > stopAfter) throw over;
      if (!st.isDirectory()) continue;
      const child = await open(at, DIR_FLAGS).catch(() => null);
      if (!child) continue;
      try {
        await walk(child, depth + 1);
      } finally {
        await child.close();
      }
    }
  }
  const root = await open(dir, DIR_FLAGS).catch(() => null);
  if (!root) return 0;
  try {
    await walk(root, 0);
  } catch (error) {
    if (error === over) return Infinity;
    throw error;
  } finally {
    await root.close();
  }
  return total;
}

function overQuota(quotaBytes: number): AppError {
  return new AppError(
    "LIMIT_EXCEEDED",
    `the workspace is over its disk quota (${quotaBytes} bytes, or more than ${MAX_ENTRIES} files); delete files before running more`,
    {
      limit: "workspaceQuotaBytes",
      workspaceQuotaBytes: quotaBytes,
    },
  );
}

export async function assertWithinQuota(dir: string, quotaBytes: number | undefined): Promise<void> {
  if (!quotaBytes) return;
  const used = await workspaceUsage(dir, quotaBytes);
  if (used > quotaBytes) throw overQuota(quotaBytes);
}

const QUOTA_POLL_MS = 500;

/** Calls onOver (once) when the workspace passes its quota while a command runs; returns the function that stops watching. */
export function watchQuota(dir: string, quotaBytes: number | undefined, onOver: () => void): () => void {
  if (!quotaBytes) return () => {};
  let measuring = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (measuring || stopped) return;
    measuring = true;
    workspaceUsage(dir, quotaBytes)
      .then((used) => {
        if (used > quotaBytes && !stopped) {
          stopped = true;
          clearInterval(timer);
          onOver();
        }
      })
      .catch(() => {})
      .finally(() => {
        measuring = false;
      });
  }, QUOTA_POLL_MS);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

// The quota without walking the tree (issue 28). A workspace's usage is measured once and kept beside it
// (stateDir/usage.json); a sandboxed command adds what its overlay's upper layer says it wrote, minus what it
// replaced or deleted (lib/tools/workspace-changes.ts), and a file tool adds what it writes. Both only ever
// over-count (a file tool's overwrite, a delete by a file tool), so the estimate is re-measured by a walk only when
// it says the workspace is over: a workspace well under its quota never pays for its file count.
export const usageLocks = new KeyedTurns();

function usageFile(dir: string): string {
  return path.join(stateDir(dir), "usage.json");
}

function serialised<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  return usageLocks.run(dir, fn);
}

async function storeUsage(dir: string, bytes: number): Promise<void> {
  await mkdir(stateDir(dir), { recursive: true, mode: 0o711 });
  await writeFile(usageFile(dir), JSON.stringify({ bytes: Math.max(0, bytes) }));
}

/** The kept estimate, measured (and kept) when there is none yet; Infinity past the quota or the entry budget. */
export function estimatedUsage(dir: string, quotaBytes: number): Promise<number> {
  return serialised(dir, async () => {
    const kept = await readFile(usageFile(dir), "utf8").then(
      (t) => (JSON.parse(t) as { bytes?: unknown }).bytes,
      () => undefined,
    );
    if (typeof kept === "number" && Number.isFinite(kept)) return kept;
    const measured = await workspaceUsage(dir, quotaBytes);
    if (Number.isFinite(measured)) await storeUsage(dir, measured);
    return measured;
  });
}

/** Adds a change (negative when space was freed) to the kept estimate; nothing when none is kept yet. */
export function addUsage(dir: string, delta: number): Promise<void> {
  return serialised(dir, async () => {
    const kept = await readFile(usageFile(dir), "utf8").then(
      (t) => (JSON.parse(t) as { bytes?: unknown }).bytes,
      () => undefined,
    );
    if (typeof kept === "number" && Number.isFinite(kept)) await storeUsage(dir, kept + delta);
  });
}

/** Drops the kept estimate (the next check measures again): after a recovery, whose changes were never added. */
export function forgetUsage(dir: string): Promise<void> {
  return serialised(dir, () => rm(usageFile(dir), { force: true }));
}

/** assertWithinQuota on the kept estimate: a walk only when the estimate says the workspace is over. */
export async function assertWithinQuotaEstimated(
  dir: string,
  quotaBytes: number | undefined,
  adding = 0,
): Promise<number> {
  if (!quotaBytes) return 0;
  const estimate = await estimatedUsage(dir, quotaBytes);
  if (estimate + adding <= quotaBytes) return estimate;
  const measured = await workspaceUsage(dir, quotaBytes);
  if (Number.isFinite(measured)) await serialised(dir, () => storeUsage(dir, measured));
  if (measured + adding > quotaBytes) throw overQuota(quotaBytes);
  return measured;
}
