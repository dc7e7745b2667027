// Who owns a workspace. A server running as root never runs a command as root (root ignores the process limit
// and may write anything it can see): commands run as an unprivileged uid, and the workspace belongs to that
// uid. Each workspace gets a uid of its own (from WORKSPACE_UID_BASE up, recorded as the directory's owner), so
// a command run on the host (exec.host) cannot read another user's workspace, and the process limit counts one
// user's commands only; inside the sandbox the uid is shown as nobody (65534). The server hands over only what it
// creates itself, through file descriptors or lchown, one entry at a time: it never walks the tree, so a
// directory swapped for a symlink can never redirect an ownership change.
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { chmod, lchown, lstat, open, readdir, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";

/** nobody:nogroup, the uid a command sees itself as inside the sandbox (and the probe runs as). */
export const SANDBOX_UID = 65534;
/** Workspace uids: WORKSPACE_UID_BASE .. WORKSPACE_UID_BASE + WORKSPACE_UID_RANGE - 1, above ordinary users. */
export const WORKSPACE_UID_BASE = 200_000;
const WORKSPACE_UID_RANGE = 1_000_000;

export function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

function isWorkspaceUid(uid: number): boolean {
  // 65534: workspaces adopted before per-workspace uids keep working (their files belong to it).
  return uid === SANDBOX_UID || (uid >= WORKSPACE_UID_BASE && uid < WORKSPACE_UID_BASE + WORKSPACE_UID_RANGE);
}

/** setpriv in front of the command when the server is root; nothing otherwise. */
export function runAsPrefix(uid: number = SANDBOX_UID): string[] {
  return runningAsRoot()
    ? ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--no-new-privs", "--"]
    : [];
}

/** The uid commands of this (already adopted) workspace run as; refuses a workspace nobody adopted. */
export async function workspaceUid(root: string): Promise<number> {
  if (!runningAsRoot()) return process.getuid?.() ?? SANDBOX_UID;
  const { uid } = await stat(root);
  if (!isWorkspaceUid(uid)) throw new Error(`workspace ${path.basename(root)} has no sandbox owner`);
  return uid;
}

/** A free uid for a new workspace: derived from its name, then the next one not owning a sibling workspace. */
async function freeUid(dir: string): Promise<number> {
  const parent = path.dirname(dir);
  const taken = new Set<number>();
  for (const name of await readdir(parent)) {
    if (name === path.basename(dir)) continue;
    const st = await lstat(path.join(parent, name)).catch(() => null);
    if (st) taken.add(st.uid);
  }
  let offset = createHash("sha256").update(path.basename(dir)).digest().readUInt32BE(0) % WORKSPACE_UID_RANGE;
  while (taken.has(WORKSPACE_UID_BASE + offset)) offset = (offset + 1) % WORKSPACE_UID_RANGE;
  return WORKSPACE_UID_BASE + offset;
}

/**
 * Root servers only: the workspace directory itself (just created or found, opened without following a link)
 * becomes its uid's (a fresh one unless it already has one), mode 0700, and the directory holding all workspaces
 * lets that uid pass (search only, no listing). The directories above WORKSPACE_ROOT must be searchable already.
 */
export async function adoptWorkspaceDir(dir: string): Promise<void> {
  if (!runningAsRoot()) return;
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const st = await handle.stat();
    if (!isWorkspaceUid(st.uid) || st.gid !== st.uid) {
      const uid = isWorkspaceUid(st.uid) ? st.uid : await freeUid(dir);
      await handle.chown(uid, uid);
    }
    if ((st.mode & 0o777) !== 0o700) await handle.chmod(0o700);
  } finally {
    await handle.close();
  }
  const parent = path.dirname(dir);
  const mode = (await stat(parent)).mode & 0o7777;
  if ((mode & 0o001) === 0) await chmod(parent, mode | 0o001);
}

/** Root servers only: a file the server just created (held open) is handed to the workspace's uid. */
export async function adoptCreatedFile(handle: FileHandle, root: string): Promise<void> {
  if (runningAsRoot()) {
    const uid = await workspaceUid(root);
    await handle.chown(uid, uid);
  }
}

/** Root servers only: a directory the server just created (addressed through a held parent descriptor, see
 * workspace-open.ts) is handed over with lchown, which never follows the entry itself. */
export async function adoptCreatedDir(createdAt: string, root: string): Promise<void> {
  if (runningAsRoot()) {
    const uid = await workspaceUid(root);
    await lchown(createdAt, uid, uid);
  }
}
