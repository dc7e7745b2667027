import { readFile, readdir, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { applyPatchTool } from "@/lib/tools/builtin";
import { callOptions, makeContext, makeSandboxDirs } from "./support/tool-context";

async function setup(files: Record<string, string>, limits?: { maxReadBytes: number; maxWriteBytes: number }) {
  const { workspace, outside } = await makeSandboxDirs();
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(workspace, name)), { recursive: true });
    await writeFile(path.join(workspace, name), content);
  }
  const ctx = makeContext(workspace, limits ? { limits } : {});
  const read = (name: string) => readFile(path.join(workspace, name), "utf8");
  const apply = async (patch: string) => applyPatchTool.execute({ patch }, callOptions(ctx));
  return { workspace, outside, read, apply };
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

const lines = (...l: string[]) => l.join("\n");

describe("apply_patch", () => {
  it("adds, updates and deletes files in one patch", async () => {
    const { read, apply, workspace } = await setup({
      "src/app.py": "def greet():\n    print('hi')\n\ndef main():\n    greet()\n",
      "old.txt": "bye\n",
    });
    const result = await apply(
      lines(
        "*** Begin Patch",
        "*** Add File: docs/readme.md",
        "+# Title",
        "+body",
        "*** Update File: src/app.py",
        "@@ def greet():",
        "-    print('hi')",
        "+    print('hello')",
        "@@ def main():",
        "     greet()",
        "+    greet()",
        "*** Delete File: old.txt",
        "*** End Patch",
      ),
    );
    expect(result).toEqual({ added: ["docs/readme.md"], updated: ["src/app.py"], deleted: ["old.txt"] });
    expect(await read("docs/readme.md")).toBe("# Title\nbody\n");
    expect(await read("src/app.py")).toBe(
      "def greet():\n    print('hello')\n\ndef main():\n    greet()\n    greet()\n",
    );
    expect((await readdir(workspace)).sort()).toEqual(["docs", "src"]);
  });

  it("uses context lines to pick the right occurrence and supports moves", async () => {
    const { read, apply, workspace } = await setup({ "a.txt": "x\nmark\nx\n" });
    await apply(
      lines(
        "*** Begin Patch",
        "*** Update File: a.txt",
        "*** Move to: b/a.txt",
        "@@",
        " mark",
        "-x",
        "+y",
        "*** End Patch",
      ),
    );
    expect(await read("b/a.txt")).toBe("x\nmark\ny\n");
    expect(await readdir(workspace)).toEqual(["b"]);
  });

  it("leaves every file untouched when a later hunk does not match", async () => {
    const { read, apply, workspace } = await setup({ "a.txt": "one\ntwo\n", "b.txt": "three\n" });
    const err = await failure(
      apply(
        lines(
          "*** Begin Patch",
          "*** Add File: new.txt",
          "+new",
          "*** Update File: a.txt",
          "-one",
          "+ONE",
          "*** Update File: b.txt",
          "-four",
          "+FOUR",
          "*** End Patch",
        ),
      ),
    );
    expect(err.code).toBe("INVALID_ARGUMENTS");
    expect(err.message).toContain("hunk 1 of b.txt");
    expect(await read("a.txt")).toBe("one\ntwo\n");
    expect(await read("b.txt")).toBe("three\n");
    expect((await readdir(workspace)).sort()).toEqual(["a.txt", "b.txt"]);
  });

  it("rejects malformed patches, paths outside the workspace and oversize results before writing", async () => {
    const { apply, workspace, outside, read } = await setup(
      { "a.txt": "a\n" },
      { maxReadBytes: 100, maxWriteBytes: 8 },
    );
    expect((await failure(apply("*** Add File: x\n+x\n*** End Patch"))).message).toContain("Begin Patch");
    expect(
      (await failure(apply(lines("*** Begin Patch", "*** Add File: x", "no plus", "*** End Patch")))).message,
    ).toContain('"+"');
    const escape = await failure(apply(lines("*** Begin Patch", "*** Add File: ../outside/x", "+x", "*** End Patch")));
    expect(escape.code).toBe("INVALID_ARGUMENTS");
    expect(await readdir(outside)).toEqual([]);
    const big = await failure(
      apply(
        lines(
          "*** Begin Patch",
          "*** Add File: ok.txt",
          "+ok",
          "*** Update File: a.txt",
          "-a",
          "+aaaaaaaaaa",
          "*** End Patch",
        ),
      ),
    );
    expect(big.code).toBe("LIMIT_EXCEEDED");
    expect(await read("a.txt")).toBe("a\n");
    expect((await readdir(workspace)).sort()).toEqual(["a.txt"]);
  });

  it("refuses to add a file that exists and to delete one that does not", async () => {
    const { apply } = await setup({ "a.txt": "a\n" });
    expect(
      (await failure(apply(lines("*** Begin Patch", "*** Add File: a.txt", "+b", "*** End Patch")))).message,
    ).toContain("already exists");
    expect((await failure(apply(lines("*** Begin Patch", "*** Delete File: none.txt", "*** End Patch")))).code).toBe(
      "NOT_FOUND",
    );
  });
});
