// Host execution (exec.host) runs the member's command outside the sandbox: whatever in the workspace the command's
// programs pick up as code runs on the host too. Git's hooks, fsmonitor, pager, editor, ssh and signature programs
// are neutralised by the environment (lib/tools/sandbox.ts, GIT_NEUTRALISED); what cannot be neutralised that way
// (filters and diff/merge drivers named by .gitattributes, Makefiles, package scripts, build scripts) is listed on the
// approval card so the owner sees it before deciding. Bounded: a few directory levels, a few thousand entries.
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";

const MAX_DEPTH = 3;
const MAX_ENTRIES = 3000;
const MAX_LISTED = 20;
const SKIP_DIRS = new Set(["node_modules", ".venv", "venv", "__pycache__", "target", "dist", "build"]);

/** Files whose mere presence means a common program run in that directory executes them. */
const RUNS_AS_CODE: ReadonlyMap<string, string> = new Map([
  ["Makefile", "make"],
  ["makefile", "make"],
  ["GNUmakefile", "make"],
  ["justfile", "just"],
  ["Justfile", "just"],
  ["CMakeLists.txt", "cmake"],
  ["setup.py", "pip install / python setup.py"],
  ["pyproject.toml", "pip install (build backend)"],
  ["build.rs", "cargo build"],
  ["Rakefile", "rake"],
  [".npmrc", "npm (config: scripts, node-options)"],
  [".envrc", "direnv"],
]);

async function small(file: string): Promise<string> {
  const info = await stat(file).catch(() => null);
  if (!info?.isFile() || info.size > 256 * 1024) return "";
  return readFile(file, "utf8").catch(() => "");
}

async function inspect(dir: string, rel: string, name: string, found: string[]) {
  const file = path.join(dir, name);
  const shown = rel ? `${rel}/${name}` : name;
  const ran = RUNS_AS_CODE.get(name);
  if (ran) return void found.push(`${shown} (${ran})`);
  if (name === "package.json") {
    const text = await small(file);
    if (/"scripts"\s*:\s*\{\s*"/.test(text)) found.push(`${shown} (scripts: npm install/test/run)`);
  } else if (name === ".gitattributes") {
    if (/\b(filter|diff|merge)=/.test(await small(file))) found.push(`${shown} (git filter/diff/merge drivers)`);
  } else if (name === ".git") {
    const config = await small(path.join(file, "config"));
    const drivers = [...config.matchAll(/^\s*\[\s*(filter|diff|merge)\s+"([^"]{1,60})"/gm)].map(
      (m) => `${m[1]} "${m[2]}"`,
    );
    if (drivers.length > 0 || /^\s*(textconv|clean|smudge|process|driver|command)\s*=/m.test(config))
      found.push(`${shown}/config (${drivers.join(", ") || "programs"})`);
    const hooks = (await readdir(path.join(file, "hooks")).catch(() => [] as string[])).filter(
      (h) => !h.endsWith(".sample"),
    );
    if (hooks.length > 0) found.push(`${shown}/hooks (${hooks.slice(0, 5).join(", ")}; neutralised by core.hooksPath)`);
  }
}

/** Workspace files that could run as code when a command runs on the host; empty when none are present. */
export async function listHostRunnableFiles(workspaceDir: string): Promise<string[]> {
  const found: string[] = [];
  let seen = 0;
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES || found.length >= MAX_LISTED) return;
      await inspect(dir, rel, entry.name, found);
      // Symbolic links are not followed: what they point at is outside the walk's bound.
      if (entry.isDirectory() && entry.name !== ".git" && !SKIP_DIRS.has(entry.name) && depth < MAX_DEPTH)
        await walk(path.join(dir, entry.name), rel ? `${rel}/${entry.name}` : entry.name, depth + 1);
    }
  };
  await walk(workspaceDir, "", 0);
  if (seen > MAX_ENTRIES || found.length >= MAX_LISTED)
    found.push("(more not listed: the workspace is larger than the card's scan)");
  return found;
}
