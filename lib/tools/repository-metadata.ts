// Where the repositories of a workspace keep their metadata, for a command no owner approved: each real .git
// directory is bound read-only in the sandbox. A .git that is not a plain directory (a "gitdir:" file or a link
// naming metadata elsewhere), or more repositories than the walk will look at, makes the whole workspace
// read-only for that command instead. Directories are opened through their parent's descriptor, never followed.
import { constants } from "node:fs";
import { lstat, open, opendir, type FileHandle } from "node:fs/promises";
import path from "node:path";

const MAX_ENTRIES = 200_000;
const MAX_REPOSITORIES = 64;
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Absolute paths to bind read-only: every .git directory, or the workspace itself when they cannot be listed. */
export async function repositoryMetadataPaths(root: string): Promise<string[]> {
  const found: string[] = [];
  let entries = 0;
  const whole = Symbol("whole");
  async function walk(handle: FileHandle, dir: string): Promise<void> {
    const listing = await opendir(`/proc/self/fd/${handle.fd}`);
    for await (const entry of listing) {
      if (++entries > MAX_ENTRIES) throw whole;
      const at = `/proc/self/fd/${handle.fd}/${entry.name}`;
      const st = await lstat(at).catch(() => null);
      if (!st) continue;
      if (entry.name === ".git") {
        if (!st.isDirectory() || found.length >= MAX_REPOSITORIES) throw whole;
        found.push(path.join(dir, entry.name));
        continue;
      }
      if (!st.isDirectory()) continue;
      const child = await open(at, DIR_FLAGS).catch(() => null);
      if (!child) throw whole;
      try {
        await walk(child, path.join(dir, entry.name));
      } finally {
        await child.close();
      }
    }
  }
  const handle = await open(root, DIR_FLAGS);
  try {
    await walk(handle, root);
  } catch (error) {
    if (error === whole) return [root];
    throw error;
  } finally {
    await handle.close();
  }
  return found;
}
