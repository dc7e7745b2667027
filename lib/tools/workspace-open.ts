// Opening a checked workspace path without following any symlink on the way. resolveWorkspacePath checks a path,
// but a command still running in another session of the same user can swap a directory on that path for a
// symlink before the server (possibly root) opens it; O_NOFOLLOW guards only the last component. Here every
// directory from the workspace root down is opened with O_NOFOLLOW | O_DIRECTORY and the next component is
// reached through the held descriptor (/proc/self/fd/N/name behaves like openat(N, name)), so a swapped
// directory fails with ELOOP or ENOTDIR instead of leading out of the workspace.
import { constants } from "node:fs";
import { mkdir, open, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@/lib/errors";

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

function segmentsBelow(root: string, target: string): string[] {
  const rel = path.relative(root, target);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel))
    throw new AppError("INVALID_ARGUMENTS", "the path is not inside the workspace");
  return rel.split(path.sep);
}

function at(dir: FileHandle, name: string): string {
  return `/proc/self/fd/${dir.fd}/${name}`;
}

export type DirWalk = { createMissing?: boolean; onCreated?: (createdAt: string) => Promise<void> };

/** Opens the directory holding `target` (below `root`), component by component, never following a link. */
async function openParent(
  root: string,
  target: string,
  walk: DirWalk = {},
): Promise<{ dir: FileHandle; name: string }> {
  const segments = segmentsBelow(root, target);
  const name = segments.pop()!;
  let dir = await open(root, DIR_FLAGS);
  try {
    for (const segment of segments) {
      if (walk.createMissing) {
        const created = await mkdir(at(dir, segment)).then(
          () => true,
          (error: NodeJS.ErrnoException) => {
            if (error.code !== "EEXIST") throw error;
            return false;
          },
        );
        if (created) await walk.onCreated?.(at(dir, segment));
      }
      const next = await open(at(dir, segment), DIR_FLAGS);
      await dir.close();
      dir = next;
    }
  } catch (error) {
    await dir.close();
    throw error;
  }
  return { dir, name };
}

/**
 * open(2) of a regular file below root with O_NOFOLLOW on every component; missing directories are created when
 * asked. O_NONBLOCK: a FIFO without a writer (or reader) would otherwise block a libuv thread for ever; anything
 * but a regular file is refused once opened.
 */
export async function openBelow(
  root: string,
  target: string,
  flags: number,
  mode?: number,
  walk?: DirWalk,
): Promise<FileHandle> {
  const { dir, name } = await openParent(root, target, walk);
  let handle: FileHandle;
  try {
    handle = await open(at(dir, name), flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENXIO") throw notRegular(root, target);
        throw error;
      },
    );
  } finally {
    await dir.close();
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw notRegular(root, target);
  }
  return handle;
}

function notRegular(root: string, target: string): AppError {
  const rel = path.relative(root, target).split(path.sep).join("/");
  return new AppError(
    "INVALID_ARGUMENTS",
    `${rel} is not a regular file (a FIFO, socket or device); file tools read and write regular files only`,
    { path: rel },
  );
}

/** unlink(2) of a file below root, reached without following any link. */
export async function unlinkBelow(root: string, target: string): Promise<void> {
  const { dir, name } = await openParent(root, target);
  try {
    await unlink(at(dir, name));
  } finally {
    await dir.close();
  }
}
