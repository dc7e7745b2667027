// Issue 18's attack suite at the tool level: the real exec tool in the real bubblewrap sandbox, as a member would
// use it once an owner approved a command (approval is tested in tests/integration/exec-attacks-http.test.ts).
// Nothing is mocked; the suite is skipped only when bwrap cannot start here (the bootstrap installs it).
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateCoverage, parseRule } from "@/lib/exec/rules";
import { analyzeShellCommand, loadShellParser } from "@/lib/exec/shell-parser";
import { execTool, readTool, writeTool } from "@/lib/tools/builtin";
import type { RunCommandResult } from "@/lib/tools/exec-runner";
import { INSTALL_BUBBLEWRAP, probeSandbox } from "@/lib/tools/sandbox";
import type { ToolRunContext } from "@/lib/tools/context";
import { callOptions, makeContext } from "./support/tool-context";

const probe = await probeSandbox();
if (!probe.ok) console.warn(`[exec attack tests] skipped: bwrap cannot start here (${probe.reason})`);
const asRoot = process.getuid?.() === 0;

/** A workspace root with a secret beside the workspace, the way data/auth-secret sat beside data/workspaces. */
function layout() {
  const root = mkdtempSync(path.join(os.tmpdir(), "toolgate-attack-"));
  // Like /var/lib: the unprivileged uid may pass through (not list) the directories above WORKSPACE_ROOT.
  chmodSync(root, 0o711);
  writeFileSync(path.join(root, "auth-secret"), "TOP-SECRET-VALUE\n");
  const workspace = path.join(root, "workspaces", "member1");
  return { root, workspace, secret: path.join(root, "auth-secret") };
}

async function run(command: string, overrides: Partial<ToolRunContext> = {}, where = layout()) {
  const context = makeContext(where.workspace, {
    sandbox: { limits: { cpuSeconds: 5 } },
    exec: { timeoutMs: 15_000, maxOutputBytes: 64 * 1024 },
    ...overrides,
  });
  const result = (await execTool.execute({ command }, callOptions(context))) as RunCommandResult;
  return { result, ...where, context };
}

describe.skipIf(!probe.ok)("exec attacks, sandboxed (every session)", () => {
  it("a session that is not 'sandboxed' by policy still runs commands in the sandbox", async () => {
    const { result } = await run("cat ../../auth-secret; echo rc=$?; ls /proc | grep -c '^[0-9]'", {
      sandboxed: false,
    });
    expect(result.stdout).not.toContain("TOP-SECRET");
    expect(result.stdout).toMatch(/rc=[1-9]/);
  });

  it("cannot read the server's secret by any path (issue 18, attack 1, approved as if by an owner)", async () => {
    const { result, root } = await run(
      `head -c 200 \${HOME%%workspaces*}auth-secret; cat ${"$"}HOME/../../auth-secret; cat ROOT/auth-secret; env`.replace(
        "ROOT",
        "/tmp",
      ),
    );
    expect(result.stdout + result.stderr).not.toContain("TOP-SECRET");
    const direct = await run(
      `cat ${root}/auth-secret; echo rc=$?`,
      {},
      { ...layout(), root, workspace: path.join(root, "workspaces", "member1") },
    );
    expect(direct.result.stdout).not.toContain("TOP-SECRET");
  });

  it("cannot read /etc/shadow or the server's environment", async () => {
    const { result } = await run("head -3 /etc/shadow; echo shadow=$?; env; cat /proc/1/environ | tr '\\0' '\\n'");
    expect(result.stdout).toMatch(/shadow=[1-9]/);
    expect(result.stdout).not.toMatch(/AUTH_SECRET|DATABASE_URL|root:/);
  });

  it("runs as an unprivileged uid even when the server is root, and cannot build namespaces", async () => {
    const { result } = await run("id -u; unshare -U true; echo userns=$?");
    const uid = Number(result.stdout.split("\n")[0]);
    expect(uid).not.toBe(0);
    if (asRoot) expect(uid).toBe(65534);
    expect(result.stdout).toMatch(/userns=[1-9]/);
  });

  it("sort -o and uniq's output operand cannot write outside the workspace (issue 18, attack 2)", async () => {
    const where = layout();
    const { result } = await run(
      "echo x | sort -o ../../escaped-sort.txt; echo x > in; uniq in ../../escaped-uniq.txt; echo done",
      {},
      where,
    );
    expect(result.stdout).toContain("done");
    expect(existsSync(path.join(where.root, "escaped-sort.txt"))).toBe(false);
    expect(existsSync(path.join(where.root, "escaped-uniq.txt"))).toBe(false);
  });

  it("a hard link to a file outside cannot be made from inside", async () => {
    const where = layout();
    const { result } = await run(`ln ${where.secret} stolen; echo rc=$?; ln /etc/passwd p; echo rc2=$?`, {}, where);
    expect(result.stdout).toMatch(/rc=[1-9]/);
    expect(result.stdout).toMatch(/rc2=[1-9]/);
  });

  it("a directory swapped for a symlink never makes the server change a host file's owner", async () => {
    const where = layout();
    const hostFile = path.join(where.root, "host-owned.txt");
    writeFileSync(hostFile, "host");
    const before = statSync(hostFile);
    await run("mkdir -p d && echo hi > d/f", {}, where);
    await run(`rm -rf d && ln -s ${where.root} d && ln -s ${hostFile} f2`, {}, where);
    // The next command and a file-tool write prepare the workspace again: nothing may follow those links.
    await run("true", {}, where);
    await writeTool.execute({ path: "new/file.txt", content: "x" }, callOptions(makeContext(where.workspace)));
    const after = statSync(hostFile);
    expect([after.uid, after.gid]).toEqual([before.uid, before.gid]);
    expect(lstatSync(path.join(where.workspace, "d")).isSymbolicLink()).toBe(true);
  });

  it("git cannot see the application's checkout from a workspace", async () => {
    const where = layout();
    spawnSync("git", ["init", "-q", where.root]);
    const { result } = await run("git rev-parse --show-toplevel; echo rc=$?", {}, where);
    expect(result.stdout).toMatch(/rc=[1-9]/);
    expect(result.stdout).not.toContain(where.root + "\n");
  });

  it("the file-size limit stops a command writing a file larger than maxFileBytes", async () => {
    const { result, workspace } = await run("head -c 3000000 /dev/zero > big; echo rc=$?", {
      disk: { workspaceQuotaBytes: 512 * 1024 * 1024, maxFileBytes: 1024 * 1024 },
    });
    expect(result.stdout).toMatch(/rc=[1-9]/);
    expect(statSync(path.join(workspace, "big")).size).toBeLessThanOrEqual(1024 * 1024);
  });

  it("a workspace over its quota runs nothing more (LIMIT_EXCEEDED)", async () => {
    const where = layout();
    await run("head -c 600000 /dev/urandom > a", {}, where);
    await expect(
      run("echo ran > ran.txt", { disk: { workspaceQuotaBytes: 100_000, maxFileBytes: 1024 * 1024 } }, where),
    ).rejects.toMatchObject({ code: "LIMIT_EXCEEDED" });
    expect(existsSync(path.join(where.workspace, "ran.txt"))).toBe(false);
  });

  // Each file stays under maxFileBytes and each process gets its own CPU limit, so only the wall-time limit
  // bounded a loop of writes: 30 s of them could fill the host's disk. The quota is watched while it runs.
  it("a command writing file after file is stopped once the workspace passes its quota", async () => {
    const where = layout();
    const quota = 4 * 1024 * 1024;
    const loop =
      "i=0; while [ $i -lt 40 ]; do head -c 1000000 /dev/urandom > f$i; i=$((i+1)); sleep 0.2; done; echo finished";
    await expect(
      run(loop, { disk: { workspaceQuotaBytes: quota, maxFileBytes: 1024 * 1024 } }, where),
    ).rejects.toMatchObject({ code: "LIMIT_EXCEEDED" });
    const written = readdirSync(where.workspace).reduce(
      (sum, name) => sum + statSync(path.join(where.workspace, name)).size,
      0,
    );
    expect(written).toBeLessThan(2 * quota);
  }, 30_000);

  // A grant of "git status" (or the admin allowlist) auto-runs git, and git status runs the repository's clean
  // filters on files whose stat changed (git describe --dirty too; git log -p its textconv drivers, --show-signature
  // its gpg.program). The member wrote .git/config and .git/info/attributes with the write tool (no approval) and
  // "git status" then ran their program. The file tools no longer write into .git (by any name: a link to it, a
  // nested repository), and git ignores a workspace laid out as a bare repository (safe.bareRepository=explicit).
  it("a granted 'git status' never runs a program the member wrote into the repository's config", async () => {
    const where = layout();
    const setup = await run(
      "git init -q . && echo one > f.txt && git -c user.email=a@b -c user.name=a add f.txt && git -c user.email=a@b -c user.name=a commit -qm one && ln -s .git meta && mkdir -p sub/.git && echo ok",
      {},
      where,
    );
    expect(setup.result.stdout).toContain("ok");
    const ctx = makeContext(where.workspace);
    const filterConfig = "[core]\n\trepositoryformatversion = 0\n[filter \"x\"]\n\tclean = sh -c 'id >pwned && cat'\n";
    for (const target of [
      ".git/config",
      "meta/config",
      ".git/info/attributes",
      "sub/.git/config",
      ".git/hooks/pre-commit",
    ]) {
      await expect(
        writeTool.execute({ path: target, content: filterConfig }, callOptions(ctx)),
        target,
      ).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    }
    await writeTool.execute({ path: ".gitattributes", content: "* filter=x\n" }, callOptions(ctx));
    await writeTool.execute({ path: "f.txt", content: "two\n" }, callOptions(ctx));
    await loadShellParser();
    const grant = parseRule("git status *");
    if ("error" in grant) throw new Error(grant.error);
    const coverage = evaluateCoverage({
      analysis: analyzeShellCommand("git status --short"),
      rules: [{ ...grant, source: "grant", id: "g", text: "git status *" }],
      safeBins: [],
    });
    expect(coverage.satisfied).toBe(true); // what the gate decides: covered, runs without an owner
    const status = await run("git status --short", {}, where);
    expect(status.result.stdout).toContain("f.txt");
    expect(existsSync(path.join(where.workspace, "pwned"))).toBe(false);
  }, 30_000);

  // A granted command that can write files reached .git: with "git log *" granted, git log's --output wrote any
  // text (its --format) into .git/config, and a granted "git status" then ran that filter; so did broad grants of
  // writers such as "cp *", "mv *", "ln *" or "dd *". A call no owner approved now finds every .git read-only
  // (the call handler sets protectRepositories; the sandbox binds each .git read-only).
  it("a granted 'git log *' cannot write the repository's config for a granted 'git status' to run", async () => {
    const where = layout();
    await run(
      "git init -q . && echo one > f.txt && git -c user.email=a@b -c user.name=a add f.txt && git -c user.email=a@b -c user.name=a commit -qm one && mkdir -p nested && cd nested && git init -q . && echo ok",
      {},
      where,
    );
    const write =
      'git log -1 --output=.git/config \'--format=[core]%n\trepositoryformatversion = 0%n[filter "x"]%n\tclean = sh -c "id >pwned \&\& cat"\'';
    await loadShellParser();
    const grant = parseRule("git log *");
    if ("error" in grant) throw new Error(grant.error);
    expect(
      evaluateCoverage({
        analysis: analyzeShellCommand(write),
        rules: [{ ...grant, source: "grant", id: "g", text: "git log *" }],
        safeBins: [],
      }).satisfied,
    ).toBe(true);
    const before = readFileSync(path.join(where.workspace, ".git", "config"), "utf8");
    const unapproved = { protectRepositories: true };
    const attempt = await run(
      `${write}; echo rc=$?; cp .git/HEAD nested/.git/config; echo nested=$?`,
      unapproved,
      where,
    );
    expect(attempt.result.stdout).toMatch(/rc=[1-9]/);
    expect(attempt.result.stdout).toMatch(/nested=[1-9]/);
    expect(readFileSync(path.join(where.workspace, ".git", "config"), "utf8")).toBe(before);
    await writeTool.execute(
      { path: ".gitattributes", content: "* filter=x\n" },
      callOptions(makeContext(where.workspace)),
    );
    await writeTool.execute({ path: "f.txt", content: "two\n" }, callOptions(makeContext(where.workspace)));
    const status = await run("git status --short", unapproved, where);
    expect(status.result.stdout).toContain("f.txt"); // git status still works on a read-only .git
    expect(existsSync(path.join(where.workspace, "pwned"))).toBe(false);
  }, 30_000);

  // A repository config written earlier (by a command an owner approved, or cloned in) names programs that
  // read-only git commands would run: an external diff and the signature checker. A granted 'git log *' runs neither.
  it("a granted 'git log *' runs no program the repository's config names (diff.external, gpg.program)", async () => {
    const where = layout();
    const git = "git -c user.email=a@b -c user.name=a";
    await run(
      `git init -q . && echo one > f.txt && ${git} add f.txt && ${git} commit -qm one && echo two > f.txt && ${git} commit -qam two && echo ok`,
      {},
      where,
    );
    writeFileSync(path.join(where.workspace, "p.sh"), "#!/bin/sh\nid > pwned\n");
    chmodSync(path.join(where.workspace, "p.sh"), 0o755);
    const config = path.join(where.workspace, ".git", "config");
    writeFileSync(
      config,
      `${readFileSync(config, "utf8")}[diff]\n\texternal = ./p.sh\n[gpg]\n\tprogram = ./p.sh\n[gpg \"ssh\"]\n\tprogram = ./p.sh\n`,
    );
    const { result } = await run(
      "git log -p --ext-diff -1; git log --show-signature -1; git tag -s -m x v1; git tag -v v1; echo done",
      { protectRepositories: true },
      where,
    );
    expect(result.stdout).toContain("done");
    expect(existsSync(path.join(where.workspace, "pwned"))).toBe(false);
    // The same config outside the sandbox's environment does run it: the test would notice if git changed.
    const plain = spawnSync("git", ["-c", "safe.directory=*", "log", "-p", "--ext-diff", "-1"], {
      cwd: where.workspace,
      env: { ...process.env, PATH: "/usr/bin:/bin", HOME: where.workspace, GIT_CONFIG_GLOBAL: "/dev/null" },
    });
    expect(plain.status).toBe(0);
    expect(existsSync(path.join(where.workspace, "pwned"))).toBe(true);
  }, 30_000);

  it("a .git that is a gitdir file or a link makes the whole workspace read-only for an unapproved call", async () => {
    const where = layout();
    await run("mkdir meta && ln -s meta .git && echo ok", {}, where);
    const { result } = await run("touch x; echo rc=$?", { protectRepositories: true }, where);
    expect(result.stdout).toMatch(/rc=[1-9]/);
    const approved = await run("touch x; echo rc=$?", {}, where);
    expect(approved.result.stdout).toContain("rc=0");
  });

  it("a workspace written as a bare repository (config with a filter and a worktree) is not a repository to git", async () => {
    const where = layout();
    const ctx = makeContext(where.workspace);
    await writeTool.execute({ path: "HEAD", content: "ref: refs/heads/main\n" }, callOptions(ctx));
    await writeTool.execute({ path: "objects/info/keep", content: "" }, callOptions(ctx));
    await writeTool.execute({ path: "refs/heads/keep", content: "" }, callOptions(ctx));
    await writeTool.execute(
      {
        path: "config",
        content: `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ${where.workspace}\n[filter "x"]\n\tclean = sh -c 'id >pwned && cat'\n`,
      },
      callOptions(ctx),
    );
    await writeTool.execute({ path: ".gitattributes", content: "* filter=x\n" }, callOptions(ctx));
    const { result } = await run("git status --short; echo rc=$?", {}, where);
    expect(result.stdout).toMatch(/rc=[1-9]/);
    expect(existsSync(path.join(where.workspace, "pwned"))).toBe(false);
  });

  it("a command does not survive a SIGKILL of the server", async () => {
    const where = layout();
    mkdirSync(where.workspace, { recursive: true });
    const seconds = String(3000 + Math.floor(Math.random() * 900));
    // One process, like the server: node with tsx as a loader (the tsx CLI would put a wrapper process in between).
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "tests/fixtures/sandboxed-sleeper.mts", where.workspace, seconds],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (d: Buffer) => d.toString().includes("started") && resolve());
      child.on("exit", (code) => reject(new Error(`sleeper exited early (${code})`)));
    });
    const running = () => spawnSync("pgrep", ["-f", `^sleep ${seconds}$`]).status === 0;
    expect(running()).toBe(true);
    child.kill("SIGKILL");
    const deadline = Date.now() + 5_000;
    while (running() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(running()).toBe(false);
  }, 30_000);
});

describe.skipIf(!probe.ok)("host execution (an admin's exec.host setting)", () => {
  it("runs outside the sandbox but never as root, with a clean environment, in the workspace", async () => {
    const { result, workspace } = await run("id -u; pwd; env | sort", { execHost: { reason: "exec.host.teams: ops" } });
    const [uid, cwd] = result.stdout.split("\n");
    expect(Number(uid)).not.toBe(0);
    expect(cwd).toBe(workspace);
    expect(result.stdout).not.toMatch(/AUTH_SECRET|DATABASE_URL|NODE_OPTIONS/);
  });
  // Every workspace used to belong to the one sandbox uid 65534, and host execution runs as its workspace's uid
  // without namespaces: a member of a host-exec team read and wrote every other user's workspace.
  it("a host-exec member cannot read another user's workspace", async () => {
    const where = layout();
    const other = path.join(where.root, "workspaces", "member2");
    await writeTool.execute({ path: "private.txt", content: "MEMBER2-PRIVATE" }, callOptions(makeContext(other)));
    const { result } = await run(
      `cat ${other}/private.txt; echo rc=$?`,
      { execHost: { reason: "exec.host.teams: ops" } },
      where,
    );
    expect(result.stdout).not.toContain("MEMBER2-PRIVATE");
  });

  it("git still stops at the workspace (GIT_CEILING_DIRECTORIES)", async () => {
    const where = layout();
    spawnSync("git", ["init", "-q", where.root]);
    const { result } = await run("git rev-parse --show-toplevel; echo rc=$?", { execHost: { reason: "test" } }, where);
    expect(result.stdout).toMatch(/rc=[1-9]/);
  });
});

describe("exec fails closed without bubblewrap", () => {
  it("answers TOOL_NOT_AVAILABLE naming how to install it, and runs nothing", async () => {
    const where = layout();
    await expect(
      run("echo ran > ran.txt", { sandbox: { bwrapPath: "/nonexistent/bwrap" } }, where),
    ).rejects.toMatchObject({
      code: "TOOL_NOT_AVAILABLE",
      message: expect.stringContaining(INSTALL_BUBBLEWRAP),
    });
    expect(existsSync(path.join(where.workspace, "ran.txt"))).toBe(false);
  });
});

describe("file tools and hard links", () => {
  it("read and write refuse a hard link to a file outside the workspace; the outside file is untouched", async () => {
    const where = layout();
    mkdirSync(where.workspace, { recursive: true });
    linkSync(where.secret, path.join(where.workspace, "linked.txt"));
    const context = makeContext(where.workspace);
    await expect(readTool.execute({ path: "linked.txt" }, callOptions(context))).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      message: expect.stringMatching(/hard link/),
    });
    await expect(
      writeTool.execute({ path: "linked.txt", content: "overwritten" }, callOptions(context)),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    expect(readFileSync(where.secret, "utf8")).toBe("TOP-SECRET-VALUE\n");
  });
  it("a symlink out of the workspace is still refused", async () => {
    const where = layout();
    mkdirSync(where.workspace, { recursive: true });
    symlinkSync(where.secret, path.join(where.workspace, "sym.txt"));
    await expect(
      readTool.execute({ path: "sym.txt" }, callOptions(makeContext(where.workspace))),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
  });
});
