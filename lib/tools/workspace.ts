// The one place that turns a model-supplied path into a real path inside the session workspace.
// Every file tool goes through resolveWorkspacePath, so confinement rules live here and nowhere else.
import { lstat, mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@/lib/errors";
import { adoptWorkspaceDir } from "./workspace-owner";

export type ResolvedWorkspacePath = {
  /** The workspace's real path. */
  root: string;
  /** Absolute path with every existing symlink resolved; the non-existing tail is appended as given. */
  absolutePath: string;
  /** Path relative to the workspace root, with forward slashes, for messages and results. */
  relativePath: string;
  /** Whether the final path exists right now. */
  exists: boolean;
  isDirectory: boolean;
};

export async function ensureWorkspace(dir: string): Promise<string> {
  // The parents get ordinary modes; only the workspace itself is private (0700, see adoptWorkspaceDir).
  await mkdir(path.dirname(dir), { recursive: true });
  await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  const real = await realpath(dir);
  await adoptWorkspaceDir(real);
  return real;
}

function invalidPath(userPath: string, reason: string): AppError {
  return new AppError("INVALID_ARGUMENTS", `invalid path "${userPath}": ${reason}`, { path: userPath });
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function splitUserPath(userPath: string): string[] {
  if (typeof userPath !== "string" || userPath.trim() === "") throw invalidPath(String(userPath), "path is empty");
  if (userPath.includes("\0")) throw invalidPath(userPath.replace(/\0/g, "\\0"), "path contains a NUL byte");
  if (path.isAbsolute(userPath) || /^[a-zA-Z]:[\\/]/.test(userPath)) {
    throw invalidPath(userPath, "absolute paths are not allowed; use a path relative to the workspace");
  }
  const segments = userPath.split(/[\\/]+/).filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) throw invalidPath(userPath, "'..' segments are not allowed");
  return segments;
}

async function lstatOrNull(p: string) {
  try {
    return await lstat(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/**
 * Walks the path one segment at a time from the real workspace root, resolving each symlink as it is met,
 * so a link anywhere in the chain (target or parent, file or directory, dangling or not) that leaves the
 * workspace is refused. Links that stay inside are followed.
 */
export async function resolveWorkspacePath(
  workspaceDir: string,
  userPath: string,
  options: { forWrite?: boolean } = {},
): Promise<ResolvedWorkspacePath> {
  const segments = splitUserPath(userPath);
  if (segments.length === 0 && options.forWrite) throw invalidPath(userPath, "cannot write to the workspace root");
  // A new session's workspace may not exist yet; an empty one behaves the same for reads.
  const root = await ensureWorkspace(workspaceDir);

  let current = root;
  for (let i = 0; i < segments.length; i++) {
    const next = path.join(current, segments[i]!);
    const stats = await lstatOrNull(next);
    if (!stats) {
      // The rest does not exist yet; nothing below a real directory inside the workspace can escape it.
      current = path.join(next, ...segments.slice(i + 1));
      break;
    }
    if (stats.isSymbolicLink()) {
      const target = await realpath(next).catch(() => null);
      if (target === null) throw invalidPath(userPath, `'${segments.slice(0, i + 1).join("/")}' is a dangling symlink`);
      if (!isInside(root, target)) throw invalidPath(userPath, "a symlink on this path points outside the workspace");
      current = target;
    } else {
      current = next;
    }
  }

  const finalStats = await lstatOrNull(current);
  if (finalStats?.isDirectory() && options.forWrite) throw invalidPath(userPath, "it is a directory");
  return {
    root,
    absolutePath: current,
    relativePath: path.relative(root, current).split(path.sep).join("/") || ".",
    exists: finalStats !== null,
    isDirectory: finalStats?.isDirectory() ?? false,
  };
}
