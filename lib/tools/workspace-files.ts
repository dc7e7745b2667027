// Limit-checked text file access shared by read, write, edit and apply_patch, so the size limits of the
// system tool settings are enforced identically by every file tool.
import { constants } from "node:fs";
import { type FileHandle } from "node:fs/promises";
import { AppError } from "@/lib/errors";
import type { ToolRunContext } from "./context";
import { resolveWorkspacePath, type ResolvedWorkspacePath } from "./workspace";
import { adoptCreatedDir, adoptCreatedFile } from "./workspace-owner";
import { openBelow, unlinkBelow } from "./workspace-open";
import { addUsage, assertWithinQuotaEstimated } from "./workspace-quota";
import { redactHostPaths } from "@/lib/redact";

type FileContext = Pick<ToolRunContext, "workspaceDir" | "limits" | "disk">;

export function fileNotFound(relativePath: string): AppError {
  return new AppError("NOT_FOUND", `file not found: ${relativePath}`, { path: relativePath });
}

export function fsError(err: unknown, relativePath: string): AppError {
  if (err instanceof AppError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return fileNotFound(relativePath);
  if (code === "EISDIR" || code === "ENOTDIR") {
    return new AppError("INVALID_ARGUMENTS", `not a regular file path: ${relativePath}`, { path: relativePath });
  }
  if (code === "ELOOP") {
    // The path was swapped for a symlink after it was checked; O_NOFOLLOW refused to follow it.
    return new AppError("INVALID_ARGUMENTS", `${relativePath} is a symlink; it was not followed`, {
      path: relativePath,
    });
  }
  if (code === "EACCES" || code === "EPERM") return new AppError("FORBIDDEN", `permission denied: ${relativePath}`);
  // Node's message names the absolute host path; the model and the user only see the workspace path.
  return new AppError(
    "TOOL_FAILED",
    `file operation failed on ${relativePath}: ${redactHostPaths((err as Error).message)}`,
  );
}

function readLimitError(ctx: FileContext, relativePath: string, size: number): AppError {
  return new AppError(
    "LIMIT_EXCEEDED",
    `${relativePath} is ${size} bytes, over the read limit maxReadBytes=${ctx.limits.maxReadBytes}`,
    { limit: "maxReadBytes", maxReadBytes: ctx.limits.maxReadBytes, size },
  );
}

/**
 * A second name for a file elsewhere (a hard link) would let a file tool read or write outside the workspace
 * while every path check passes: a regular file with more than one link is refused, checked on the open descriptor.
 */
async function assertSingleLink(handle: FileHandle, relativePath: string): Promise<void> {
  const { nlink, isFile } = await handle.stat().then((s) => ({ nlink: s.nlink, isFile: s.isFile() }));
  if (isFile && nlink > 1) {
    throw new AppError(
      "INVALID_ARGUMENTS",
      `${relativePath} is a hard link (${nlink} names for one file); file tools do not follow hard links`,
      { path: relativePath },
    );
  }
}

/** Checks the size on the open descriptor first so an oversize file is never read, and again after (it may grow). */
async function readLimited(handle: FileHandle, ctx: FileContext, relativePath: string): Promise<Buffer> {
  await assertSingleLink(handle, relativePath);
  const { size } = await handle.stat();
  if (size > ctx.limits.maxReadBytes) throw readLimitError(ctx, relativePath, size);
  const buffer = await handle.readFile();
  if (buffer.length > ctx.limits.maxReadBytes) throw readLimitError(ctx, relativePath, buffer.length);
  return buffer;
}

export type TextFile = { file: ResolvedWorkspacePath; content: string; bytes: number };

/** Reads a whole UTF-8 text file, refusing files larger than limits.maxReadBytes before reading them. */
export async function readWorkspaceText(ctx: FileContext, userPath: string): Promise<TextFile> {
  const file = await resolveWorkspacePath(ctx.workspaceDir, userPath);
  return readResolvedText(ctx, file);
}

/** Reads an already resolved file; no component of its path is followed if it became a symlink since the check. */
export async function readResolvedText(ctx: FileContext, file: ResolvedWorkspacePath): Promise<TextFile> {
  if (!file.exists) throw fileNotFound(file.relativePath);
  if (file.isDirectory) throw new AppError("INVALID_ARGUMENTS", `${file.relativePath} is a directory, not a file`);
  try {
    const handle = await openBelow(file.root, file.absolutePath, constants.O_RDONLY);
    const buffer = await readLimited(handle, ctx, file.relativePath).finally(() => handle.close());
    if (buffer.includes(0)) {
      throw new AppError(
        "INVALID_ARGUMENTS",
        `${file.relativePath} looks like a binary file; only text files can be read`,
      );
    }
    return { file, content: buffer.toString("utf8"), bytes: buffer.length };
  } catch (err) {
    throw fsError(err, file.relativePath);
  }
}

/** Fails with LIMIT_EXCEEDED when content is over limits.maxWriteBytes; call before touching the disk. */
export function assertWritable(ctx: FileContext, relativePath: string, content: string): number {
  const bytes = Buffer.byteLength(content, "utf8");
  if (bytes > ctx.limits.maxWriteBytes) {
    throw new AppError(
      "LIMIT_EXCEEDED",
      `content for ${relativePath} is ${bytes} bytes, over the write limit maxWriteBytes=${ctx.limits.maxWriteBytes}; nothing was written`,
      { limit: "maxWriteBytes", maxWriteBytes: ctx.limits.maxWriteBytes, size: bytes },
    );
  }
  return bytes;
}

/**
 * File tools never write into a repository's metadata (a path segment named .git, after links are resolved): a
 * repository's config names programs (filter.<driver>.clean, diff textconv, gpg.program...) that an owner's
 * grant of "git status" or "git log *" would then run without an approval. Changing .git takes a command an owner
 * approved. Called by every write and delete, and by apply_patch before its first change.
 */
export function assertNotRepositoryMetadata(file: ResolvedWorkspacePath): void {
  if (file.relativePath.split("/").includes(".git")) {
    throw new AppError(
      "INVALID_ARGUMENTS",
      `${file.relativePath} is inside a repository's metadata (.git); file tools do not change it, an approved command can`,
      { path: file.relativePath },
    );
  }
}

/** Writes an already resolved and limit-checked file, creating parent directories. */
export async function writeResolvedText(file: ResolvedWorkspacePath, content: string): Promise<void> {
  assertNotRepositoryMetadata(file);
  try {
    // No O_TRUNC: the link count is checked on the descriptor before anything of the file changes. Missing
    // parent directories are created on the way, each handed to the sandbox uid as it is made.
    const flags = constants.O_WRONLY | constants.O_CREAT;
    const handle = await openBelow(file.root, file.absolutePath, flags, 0o644, {
      createMissing: true,
      onCreated: (at) => adoptCreatedDir(at, file.root),
    });
    try {
      await assertSingleLink(handle, file.relativePath);
      await adoptCreatedFile(handle, file.root);
      await handle.truncate(0);
      await handle.writeFile(content, "utf8");
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw fsError(err, file.relativePath);
  }
}

export async function deleteResolvedFile(file: ResolvedWorkspacePath): Promise<void> {
  assertNotRepositoryMetadata(file);
  try {
    await unlinkBelow(file.root, file.absolutePath);
  } catch (err) {
    throw fsError(err, file.relativePath);
  }
}

export async function writeWorkspaceText(
  ctx: FileContext,
  userPath: string,
  content: string,
): Promise<{ file: ResolvedWorkspacePath; bytes: number }> {
  const file = await resolveWorkspacePath(ctx.workspaceDir, userPath, { forWrite: true });
  const bytes = assertWritable(ctx, file.relativePath, content);
  await assertWithinQuotaEstimated(file.root, ctx.disk?.workspaceQuotaBytes, bytes);
  await writeResolvedText(file, content);
  // Counted in full even when it replaced a file: the estimate only over-counts (see workspace-quota.ts).
  await addUsage(file.root, bytes);
  return { file, bytes };
}
