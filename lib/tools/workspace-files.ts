// Limit-checked text file access shared by read, write, edit and apply_patch, so the size limits of the
// system tool settings are enforced identically by every file tool.
import { constants } from "node:fs";
import { mkdir, open, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@/lib/errors";
import type { ToolRunContext } from "./context";
import { resolveWorkspacePath, type ResolvedWorkspacePath } from "./workspace";

type FileContext = Pick<ToolRunContext, "workspaceDir" | "limits">;

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
    return new AppError("INVALID_ARGUMENTS", `${relativePath} is a symlink; it was not followed`, { path: relativePath });
  }
  if (code === "EACCES" || code === "EPERM") return new AppError("FORBIDDEN", `permission denied: ${relativePath}`);
  return new AppError("TOOL_FAILED", `file operation failed on ${relativePath}: ${(err as Error).message}`);
}

function readLimitError(ctx: FileContext, relativePath: string, size: number): AppError {
  return new AppError(
    "LIMIT_EXCEEDED",
    `${relativePath} is ${size} bytes, over the read limit maxReadBytes=${ctx.limits.maxReadBytes}`,
    { limit: "maxReadBytes", maxReadBytes: ctx.limits.maxReadBytes, size },
  );
}

/** Checks the size on the open descriptor first so an oversize file is never read, and again after (it may grow). */
async function readLimited(handle: FileHandle, ctx: FileContext, relativePath: string): Promise<Buffer> {
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
  if (!file.exists) throw fileNotFound(file.relativePath);
  if (file.isDirectory) throw new AppError("INVALID_ARGUMENTS", `${file.relativePath} is a directory, not a file`);
  try {
    // O_NOFOLLOW: the checked path must not have been swapped for a symlink since it was resolved.
    const handle = await open(file.absolutePath, constants.O_RDONLY | constants.O_NOFOLLOW);
    const buffer = await readLimited(handle, ctx, file.relativePath).finally(() => handle.close());
    if (buffer.includes(0)) {
      throw new AppError("INVALID_ARGUMENTS", `${file.relativePath} looks like a binary file; only text files can be read`);
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

/** Writes an already resolved and limit-checked file, creating parent directories. */
export async function writeResolvedText(file: ResolvedWorkspacePath, content: string): Promise<void> {
  try {
    await mkdir(path.dirname(file.absolutePath), { recursive: true });
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
    const handle = await open(file.absolutePath, flags, 0o644);
    await handle.writeFile(content, "utf8").finally(() => handle.close());
  } catch (err) {
    throw fsError(err, file.relativePath);
  }
}

export async function deleteResolvedFile(file: ResolvedWorkspacePath): Promise<void> {
  try {
    await unlink(file.absolutePath);
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
  await writeResolvedText(file, content);
  return { file, bytes };
}
