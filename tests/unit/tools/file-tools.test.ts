import { spawnSync } from "node:child_process";
import { mkdir, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { editTool, readTool, writeTool } from "@/lib/tools/builtin";
import { resolveWorkspacePath } from "@/lib/tools/workspace";
import { deleteResolvedFile, readResolvedText, writeResolvedText } from "@/lib/tools/workspace-files";
import { callOptions, makeContext, makeSandboxDirs } from "./support/tool-context";

async function failure(run: () => unknown): Promise<AppError> {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected the call to fail");
}

describe("read", () => {
  it("reads a whole file and line ranges", async () => {
    const { workspace } = await makeSandboxDirs();
    await writeFile(path.join(workspace, "f.txt"), "one\ntwo\nthree\nfour\n");
    const ctx = makeContext(workspace);
    const all = await readTool.execute({ path: "f.txt" }, callOptions(ctx));
    expect(all).toMatchObject({
      path: "f.txt",
      content: "one\ntwo\nthree\nfour\n",
      totalLines: 4,
      startLine: 1,
      endLine: 4,
    });
    const slice = await readTool.execute({ path: "f.txt", offset: 2, limit: 2 }, callOptions(ctx));
    expect(slice).toMatchObject({ content: "two\nthree", startLine: 2, endLine: 3 });
    expect((await failure(() => readTool.execute({ path: "f.txt", offset: 9 }, callOptions(ctx)))).code).toBe(
      "INVALID_ARGUMENTS",
    );
  });

  it("reports a missing file as NOT_FOUND and a path escape as INVALID_ARGUMENTS", async () => {
    const { workspace, outside } = await makeSandboxDirs();
    await writeFile(path.join(outside, "secret.txt"), "secret");
    await symlink(outside, path.join(workspace, "out"));
    const ctx = makeContext(workspace);
    expect((await failure(() => readTool.execute({ path: "nope.txt" }, callOptions(ctx)))).code).toBe("NOT_FOUND");
    for (const p of ["../outside/secret.txt", path.join(outside, "secret.txt"), "out/secret.txt"]) {
      const err = await failure(() => readTool.execute({ path: p }, callOptions(ctx)));
      expect(err.code).toBe("INVALID_ARGUMENTS");
      expect(JSON.stringify(err)).not.toContain('secret"');
    }
  });

  it("Y16 refuses a file over maxReadBytes and names the limit", async () => {
    const { workspace } = await makeSandboxDirs();
    await writeFile(path.join(workspace, "big.txt"), "x".repeat(101));
    await writeFile(path.join(workspace, "ok.txt"), "x".repeat(100));
    const ctx = makeContext(workspace, { limits: { maxReadBytes: 100, maxWriteBytes: 100 } });
    const err = await failure(() => readTool.execute({ path: "big.txt" }, callOptions(ctx)));
    expect(err.code).toBe("LIMIT_EXCEEDED");
    expect(err.message).toContain("maxReadBytes=100");
    await expect(readTool.execute({ path: "ok.txt" }, callOptions(ctx))).resolves.toMatchObject({ bytes: 100 });
  });
});

describe("write", () => {
  it("creates parent directories and reports whether the file was new", async () => {
    const { workspace } = await makeSandboxDirs();
    const ctx = makeContext(workspace);
    const first = await writeTool.execute({ path: "a/b/c.txt", content: "héllo" }, callOptions(ctx));
    expect(first).toEqual({ path: "a/b/c.txt", bytesWritten: 6, created: true });
    const second = await writeTool.execute({ path: "a/b/c.txt", content: "bye" }, callOptions(ctx));
    expect(second).toMatchObject({ created: false });
    expect(await readFile(path.join(workspace, "a/b/c.txt"), "utf8")).toBe("bye");
  });

  it("Y16 refuses content over maxWriteBytes and writes nothing", async () => {
    const { workspace } = await makeSandboxDirs();
    const ctx = makeContext(workspace, { limits: { maxReadBytes: 1000, maxWriteBytes: 10 } });
    const err = await failure(() =>
      writeTool.execute({ path: "d/big.txt", content: "x".repeat(11) }, callOptions(ctx)),
    );
    expect(err.code).toBe("LIMIT_EXCEEDED");
    expect(err.message).toContain("maxWriteBytes=10");
    expect(await readdir(workspace)).toEqual([]);
  });

  it("does not write through a symlink that leaves the workspace", async () => {
    const { workspace, outside } = await makeSandboxDirs();
    await symlink(outside, path.join(workspace, "out"));
    const err = await failure(() =>
      writeTool.execute({ path: "out/pwned.txt", content: "x" }, callOptions(makeContext(workspace))),
    );
    expect(err.code).toBe("INVALID_ARGUMENTS");
    expect(await readdir(outside)).toEqual([]);
  });
});

describe("edit", () => {
  async function setup(content: string, limits?: { maxReadBytes: number; maxWriteBytes: number }) {
    const { workspace } = await makeSandboxDirs();
    await mkdir(path.join(workspace, "src"));
    const file = path.join(workspace, "src", "x.ts");
    await writeFile(file, content);
    return { file, ctx: makeContext(workspace, limits ? { limits } : {}) };
  }

  it("replaces a unique exact match, keeping replacement patterns literal", async () => {
    const { file, ctx } = await setup("const a = 1;\nconst b = 2;\n");
    const result = await editTool.execute(
      { path: "src/x.ts", oldText: "const b = 2;", newText: "const b = '$&';" },
      callOptions(ctx),
    );
    expect(result).toEqual({ path: "src/x.ts", replacements: 1 });
    expect(await readFile(file, "utf8")).toBe("const a = 1;\nconst b = '$&';\n");
  });

  it("fails when the text is missing or ambiguous, leaving the file unchanged", async () => {
    const { file, ctx } = await setup("x = 1\nx = 1\n");
    const missing = await failure(() =>
      editTool.execute({ path: "src/x.ts", oldText: "y = 1", newText: "z" }, callOptions(ctx)),
    );
    expect(missing.message).toContain("not found");
    const ambiguous = await failure(() =>
      editTool.execute({ path: "src/x.ts", oldText: "x = 1", newText: "z" }, callOptions(ctx)),
    );
    expect(ambiguous.message).toContain("2 times");
    expect(await readFile(file, "utf8")).toBe("x = 1\nx = 1\n");
  });

  it("replaces every occurrence with replaceAll", async () => {
    const { file, ctx } = await setup("x = 1\nx = 1\n");
    await expect(
      editTool.execute({ path: "src/x.ts", oldText: "x = 1", newText: "x = 2", replaceAll: true }, callOptions(ctx)),
    ).resolves.toEqual({ path: "src/x.ts", replacements: 2 });
    expect(await readFile(file, "utf8")).toBe("x = 2\nx = 2\n");
  });

  it("refuses an edit whose result is over maxWriteBytes", async () => {
    const { file, ctx } = await setup("abc", { maxReadBytes: 100, maxWriteBytes: 5 });
    const err = await failure(() =>
      editTool.execute({ path: "src/x.ts", oldText: "b", newText: "bbbbbb" }, callOptions(ctx)),
    );
    expect(err.code).toBe("LIMIT_EXCEEDED");
    expect(await readFile(file, "utf8")).toBe("abc");
  });

  it("reports a missing file as NOT_FOUND", async () => {
    const { ctx } = await setup("");
    expect(
      (await failure(() => editTool.execute({ path: "src/none.ts", oldText: "a", newText: "b" }, callOptions(ctx))))
        .code,
    ).toBe("NOT_FOUND");
  });
});

describe("file access hardening", () => {
  it("does not follow a symlink swapped in after the path was checked", async () => {
    const { workspace, outside } = await makeSandboxDirs();
    await writeFile(path.join(workspace, "a.txt"), "inside");
    await writeFile(path.join(outside, "target.txt"), "untouched");
    const checked = await resolveWorkspacePath(workspace, "a.txt", { forWrite: true });
    await rm(path.join(workspace, "a.txt"));
    await symlink(path.join(outside, "target.txt"), path.join(workspace, "a.txt"));
    const err = await failure(() => writeResolvedText(checked, "pwned"));
    expect(err.code).toBe("INVALID_ARGUMENTS");
    expect(await readFile(path.join(outside, "target.txt"), "utf8")).toBe("untouched");
  });

  // A command still running in another session of the same user (workspaces are per user) can swap a directory
  // for a symlink between the server's path check and its open/mkdir/unlink: the server (root) must not follow it.
  it("does not write, create directories or delete through a parent directory swapped for a symlink after the check", async () => {
    const { workspace, outside } = await makeSandboxDirs();
    await mkdir(path.join(workspace, "d"));
    await writeFile(path.join(workspace, "d", "old.txt"), "inside");
    await writeFile(path.join(outside, "old.txt"), "untouched");
    const fresh = await resolveWorkspacePath(workspace, "d/new.txt", { forWrite: true });
    const nested = await resolveWorkspacePath(workspace, "d/sub/new.txt", { forWrite: true });
    const existing = await resolveWorkspacePath(workspace, "d/old.txt", { forWrite: true });
    await rm(path.join(workspace, "d"), { recursive: true });
    await symlink(outside, path.join(workspace, "d"));
    for (const file of [fresh, nested, existing]) {
      expect((await failure(() => writeResolvedText(file, "pwned"))).code).toBe("INVALID_ARGUMENTS");
    }
    expect((await failure(() => deleteResolvedFile(existing))).code).toBe("INVALID_ARGUMENTS");
    expect((await readdir(outside)).sort()).toEqual(["old.txt"]);
    expect(await readFile(path.join(outside, "old.txt"), "utf8")).toBe("untouched");
  });

  it("does not read through a parent directory swapped for a symlink after the check", async () => {
    const { workspace, outside } = await makeSandboxDirs();
    await mkdir(path.join(workspace, "d"));
    await writeFile(path.join(workspace, "d", "secret.txt"), "decoy");
    await writeFile(path.join(outside, "secret.txt"), "host secret");
    const checked = await resolveWorkspacePath(workspace, "d/secret.txt");
    await rm(path.join(workspace, "d"), { recursive: true });
    await symlink(outside, path.join(workspace, "d"));
    const err = await failure(() => readResolvedText(makeContext(workspace), checked));
    expect(err.code).toBe("INVALID_ARGUMENTS");
    expect(JSON.stringify(err)).not.toContain("host secret");
  });

  // A FIFO (made by any approved command, e.g. mkfifo or tar) has no writer: a blocking open would hang one of
  // the server's four libuv threads for ever, and four such reads stop every file operation of the server.
  it("refuses a FIFO or other special file at once instead of blocking on it", async () => {
    const { workspace } = await makeSandboxDirs();
    expect(spawnSync("mkfifo", [path.join(workspace, "pipe")]).status).toBe(0);
    const ctx = makeContext(workspace);
    const started = Date.now();
    expect((await failure(() => readTool.execute({ path: "pipe" }, callOptions(ctx)))).code).toBe("INVALID_ARGUMENTS");
    expect((await failure(() => writeTool.execute({ path: "pipe", content: "x" }, callOptions(ctx)))).code).toBe(
      "INVALID_ARGUMENTS",
    );
    expect(Date.now() - started).toBeLessThan(8_000); // a blocking open never returns
  }, 20_000);

  it("never writes, edits or deletes inside a repository's metadata (.git)", async () => {
    const { workspace } = await makeSandboxDirs();
    await mkdir(path.join(workspace, ".git"));
    await writeFile(path.join(workspace, ".git", "config"), "[core]\n");
    const ctx = makeContext(workspace);
    expect(
      (
        await failure(() =>
          editTool.execute({ path: ".git/config", oldText: "[core]", newText: '[filter "x"]' }, callOptions(ctx)),
        )
      ).code,
    ).toBe("INVALID_ARGUMENTS");
    expect(
      (await failure(() => writeTool.execute({ path: "a/.git/config", content: "x" }, callOptions(ctx)))).code,
    ).toBe("INVALID_ARGUMENTS");
    const metadata = await resolveWorkspacePath(workspace, ".git/config", { forWrite: true });
    expect((await failure(() => deleteResolvedFile(metadata))).code).toBe("INVALID_ARGUMENTS");
    expect(await readFile(path.join(workspace, ".git", "config"), "utf8")).toBe("[core]\n");
  });

  it("creates a session workspace that does not exist yet, and refuses binary files", async () => {
    const { base } = await makeSandboxDirs();
    const ctx = makeContext(path.join(base, "fresh-session"));
    await expect(writeTool.execute({ path: "a.txt", content: "x" }, callOptions(ctx))).resolves.toMatchObject({
      created: true,
    });
    await writeFile(path.join(base, "fresh-session", "bin.dat"), Buffer.from([1, 0, 2]));
    expect((await failure(() => readTool.execute({ path: "bin.dat" }, callOptions(ctx)))).message).toContain("binary");
  });
});
