import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { resolveWorkspacePath } from "@/lib/tools/workspace";
import { makeSandboxDirs } from "./support/tool-context";

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe("resolveWorkspacePath", () => {
  it("resolves a relative path inside the workspace, existing or not", async () => {
    const { workspace } = await makeSandboxDirs();
    await writeFile(path.join(workspace, "a.txt"), "x");
    const existing = await resolveWorkspacePath(workspace, "a.txt");
    expect(existing).toMatchObject({ absolutePath: path.join(workspace, "a.txt"), relativePath: "a.txt", exists: true });
    const fresh = await resolveWorkspacePath(workspace, "./new/dir/b.txt", { forWrite: true });
    expect(fresh).toMatchObject({ absolutePath: path.join(workspace, "new/dir/b.txt"), relativePath: "new/dir/b.txt", exists: false });
  });

  it.each([
    ["../outside/secret.txt", "'..'"],
    ["sub/../../outside/secret.txt", "'..'"],
    ["..", "'..'"],
    ["/etc/passwd", "absolute"],
    ["a\0b", "NUL"],
    ["", "empty"],
  ])("rejects %j", async (userPath, reason) => {
    const { workspace } = await makeSandboxDirs();
    const err = await rejection(resolveWorkspacePath(workspace, userPath));
    expect(err.code).toBe("INVALID_ARGUMENTS");
    expect(err.message).toContain(reason);
  });

  it("rejects a file symlink pointing outside, for reading and writing", async () => {
    const { workspace, outside } = await makeSandboxDirs();
    await writeFile(path.join(outside, "secret.txt"), "secret");
    await symlink(path.join(outside, "secret.txt"), path.join(workspace, "link.txt"));
    for (const forWrite of [false, true]) {
      const err = await rejection(resolveWorkspacePath(workspace, "link.txt", { forWrite }));
      expect(err.message).toContain("outside the workspace");
    }
  });

  it("rejects a directory symlink pointing outside, also for files that do not exist yet below it", async () => {
    const { workspace, outside } = await makeSandboxDirs();
    await symlink(outside, path.join(workspace, "escape"));
    const err = await rejection(resolveWorkspacePath(workspace, "escape/new.txt", { forWrite: true }));
    expect(err.message).toContain("outside the workspace");
    // A relative link counts the same as an absolute one.
    await mkdir(path.join(workspace, "nested"));
    await symlink("../../outside", path.join(workspace, "nested", "up"));
    await rejection(resolveWorkspacePath(workspace, "nested/up/x.txt", { forWrite: true }));
  });

  it("rejects a dangling symlink, whose target could be created outside", async () => {
    const { workspace, outside } = await makeSandboxDirs();
    await symlink(path.join(outside, "not-yet.txt"), path.join(workspace, "dangling.txt"));
    const err = await rejection(resolveWorkspacePath(workspace, "dangling.txt", { forWrite: true }));
    expect(err.message).toContain("dangling");
  });

  it("follows symlinks that stay inside the workspace", async () => {
    const { workspace } = await makeSandboxDirs();
    await mkdir(path.join(workspace, "real"));
    await writeFile(path.join(workspace, "real", "f.txt"), "inside");
    await symlink(path.join(workspace, "real"), path.join(workspace, "alias"));
    await symlink("real/f.txt", path.join(workspace, "f-link.txt"));
    const viaDir = await resolveWorkspacePath(workspace, "alias/f.txt");
    expect(viaDir.absolutePath).toBe(path.join(workspace, "real", "f.txt"));
    const viaFile = await resolveWorkspacePath(workspace, "f-link.txt");
    expect(await readFile(viaFile.absolutePath, "utf8")).toBe("inside");
  });

  it("works when the workspace path itself goes through a symlink", async () => {
    const { base, workspace } = await makeSandboxDirs();
    await symlink(workspace, path.join(base, "ws-link"));
    await writeFile(path.join(workspace, "a.txt"), "x");
    const resolved = await resolveWorkspacePath(path.join(base, "ws-link"), "a.txt");
    expect(resolved.exists).toBe(true);
  });

  it("refuses to write to a directory or the root", async () => {
    const { workspace } = await makeSandboxDirs();
    await mkdir(path.join(workspace, "dir"));
    expect((await rejection(resolveWorkspacePath(workspace, "dir", { forWrite: true }))).message).toContain("directory");
    expect((await rejection(resolveWorkspacePath(workspace, ".", { forWrite: true }))).message).toContain("root");
  });
});
