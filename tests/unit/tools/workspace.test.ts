import { spawn } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { resolveWorkspacePath } from "@/lib/tools/workspace";
import { workspaceUsage } from "@/lib/tools/workspace-quota";
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
    expect(existing).toMatchObject({
      absolutePath: path.join(workspace, "a.txt"),
      relativePath: "a.txt",
      exists: true,
    });
    const fresh = await resolveWorkspacePath(workspace, "./new/dir/b.txt", { forWrite: true });
    expect(fresh).toMatchObject({
      absolutePath: path.join(workspace, "new/dir/b.txt"),
      relativePath: "new/dir/b.txt",
      exists: false,
    });
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
    expect((await rejection(resolveWorkspacePath(workspace, "dir", { forWrite: true }))).message).toContain(
      "directory",
    );
    expect((await rejection(resolveWorkspacePath(workspace, ".", { forWrite: true }))).message).toContain("root");
  });
});

describe("workspaceUsage (the disk quota walk)", () => {
  // The walk runs every half second while a command runs; that command can swap a directory for a symlink to a
  // large tree outside between the walk's lstat and its opendir. The walk must never descend there.
  it("never walks into a directory swapped for a symlink while it measures", async () => {
    const { workspace, outside } = await makeSandboxDirs();
    for (let i = 0; i < 100; i++) await writeFile(path.join(outside, `big${i}.bin`), Buffer.alloc(100 * 1024, 1));
    await mkdir(path.join(workspace, "d"));
    await symlink(outside, path.join(workspace, "l"));
    // Swaps d (a real, empty directory) and l (a symlink to outside) as fast as it can, in another process.
    const swapper = spawn(
      "python3",
      [
        "-c",
        "import os,sys\nw=sys.argv[1]\nwhile True: os.rename(w+'/d', w+'/t'); os.rename(w+'/l', w+'/d'); os.rename(w+'/t', w+'/l')",
        workspace,
      ],
      { stdio: "ignore" },
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 500)); // python is swapping by now
      let worst = 0;
      for (let i = 0; i < 1000; i++) worst = Math.max(worst, await workspaceUsage(workspace, 64 * 1024 * 1024));
      expect(worst).toBeLessThan(1024 * 1024);
    } finally {
      // Gone before the test ends: a swapper still renaming while the temporary directories are removed made
      // that removal fail (ENOTEMPTY) on a busy machine.
      const exited = new Promise((resolve) =>
        swapper.exitCode !== null || swapper.signalCode !== null ? resolve(null) : swapper.once("exit", resolve),
      );
      swapper.kill("SIGKILL");
      await exited;
    }
  }, 30_000);
});
