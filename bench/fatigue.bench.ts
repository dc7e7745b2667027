// Issue 28, "measure fatigue": a scripted, realistic coding session (listing, reading, grep -r, sed edits, a test
// script, git, python and node scripts, an npm install, a curl to an unlisted domain, an rm -rf), decided per
// security mode by the execution gate's own decision (decideExecCall, the default settings of each mode, no
// grants), and run for real in sandbox mode through the exec tool, after which the member restores the directory
// the session deleted. Result: owner requests per session under each mode.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { decideExecCall } from "@/lib/exec/decide";
import { loadShellParser } from "@/lib/exec/shell-parser";
import { DEFAULT_EXEC_SETTINGS, type ExecSecurity } from "@/lib/policy";
import { execTool } from "@/lib/tools/builtin/exec";
import { probeSandbox } from "@/lib/tools/sandbox";
import { restoreCommand } from "@/lib/tools/workspace-changes";
import { ensureWorkspace } from "@/lib/tools/workspace";

export const SESSION: readonly string[] = [
  "ls -la",
  "mkdir -p src tests docs scratch",
  "printf 'export function add(a, b) {\\n  return a + b;\\n}\\n' > src/add.js",
  "printf 'v1 notes\\nTODO: fix add\\nv2 notes\\n' > notes.md",
  "printf 'import sys\\nprint(sum(int(x) for x in sys.argv[1:]))\\n' > tools.py",
  "printf '#!/bin/sh\\nset -e\\nfor f in tests/*.sh; do sh \"$f\"; done\\necho all tests passed\\n' > run-tests.sh",
  "printf 'test \"$(node -e \"console.log(1+2)\")\" = 3\\n' > tests/add.sh",
  "cat notes.md",
  "cat notes.md | grep v1",
  "grep -rn TODO .",
  "grep -rln 'return' src",
  "wc -l src/add.js notes.md",
  "head -n 2 notes.md",
  "find . -name '*.js' -not -path './node_modules/*'",
  "sed -i 's/TODO: fix add/DONE: add fixed/' notes.md",
  "sed -n '1,3p' src/add.js",
  "python3 tools.py 1 2 3",
  "python3 -c 'import json; print(json.dumps({\"ok\": True}))'",
  "node -e 'console.log(require(\"./src/add.js\") ? \"loaded\" : \"\")' || true",
  "node --version",
  "sh run-tests.sh",
  "chmod +x run-tests.sh && ./run-tests.sh",
  "git init -q",
  "git config user.email member@example.com && git config user.name Member",
  "git status --short",
  "git add -A",
  "git commit -qm 'first commit'",
  "git log --oneline",
  "echo '// more' >> src/add.js",
  "git diff",
  "git diff --stat",
  "git add src/add.js && git commit -qm 'more'",
  "git log --oneline | wc -l",
  "du -sh .",
  "tar czf /tmp/src.tgz src && ls -l /tmp/src.tgz",
  "cp -r src scratch/ && ls scratch/src",
  "cat scratch/src/add.js | tr a-z A-Z | head -n 1",
  "sort notes.md | uniq",
  "npm install left-pad@1.3.0 --registry http://registry.local.test/",
  "curl -sS https://unlisted.example.org/data.json -o data.json",
  "rm -rf scratch",
  "ls",
];

const MODES: readonly ExecSecurity[] = ["sandbox", "allowlist", "deny"];

export async function runFatigueBench(): Promise<string> {
  await loadShellParser();
  const lines = [
    "## Owner requests per coding session (issue 28, `bench/fatigue.bench.ts`)",
    "",
    `A scripted session of ${SESSION.length} commands (listing, reading, grep -r, sed edits, a test script, git init/status/add/commit/diff/log, python and node scripts, an \`npm install\`, a \`curl\` to an unlisted domain, an \`rm -rf\`), decided by the execution gate's own decision per mode (each mode's default settings, no grants, no admin allowlist).`,
    "",
    "| mode | runs without an owner | owner requests | refused |",
    "|---|---:|---:|---:|",
  ];
  for (const security of MODES) {
    const settings = { ...DEFAULT_EXEC_SETTINGS, security };
    const counts = { allow: 0, ask: 0, deny: 0 };
    for (const command of SESSION) counts[decideExecCall({ command, settings, rules: [] }).verdict.action] += 1;
    lines.push(`| ${security} | ${counts.allow} | ${counts.ask} | ${counts.deny} |`);
  }
  lines.push("");
  const probe = await probeSandbox();
  if (!probe.ok) {
    lines.push(`The session was not run (bubblewrap cannot start here: ${probe.reason}).`, "");
    return lines.join("\n");
  }
  // Sandbox mode for real: every command through the exec tool in a fresh workspace, then the member restores scratch/.
  const root = mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-fatigue-"));
  const workspaceDir = await ensureWorkspace(path.join(root, "member"));
  const context = { userId: "member", sessionId: "fatigue", workspaceDir, limits: { maxReadBytes: 1, maxWriteBytes: 1 }, exec: { timeoutMs: 30_000, maxOutputBytes: 65_536 }, services: {}, disk: { workspaceQuotaBytes: 512 * 1024 * 1024, maxFileBytes: 64 * 1024 * 1024 } };
  const failed: string[] = [];
  let restoreId: string | null = null;
  const started = Date.now();
  for (const [i, command] of SESSION.entries()) {
    const result = (await execTool.execute({ command }, { callId: `fatigue-${i}`, context } as never)) as { exitCode: number | null; changes?: { restoreId: string | null } | null };
    if (result.exitCode !== 0) failed.push(command);
    if (command === "rm -rf scratch") restoreId = result.changes?.restoreId ?? null;
  }
  const elapsed = Date.now() - started;
  const restored = restoreId ? await restoreCommand(workspaceDir, restoreId) : null;
  lines.push(
    `Run for real in sandbox mode (exec tool, bubblewrap, overlay): ${SESSION.length} commands in ${(elapsed / 1000).toFixed(1)} s, no owner request. Non-zero exits: ${failed.length ? failed.map((c) => `\`${c.slice(0, 50)}\``).join(", ") : "none"} (the sandbox has no network: \`npm install\` and \`curl\` fail there until network by domain lands; with it, the unlisted domain would be the one request). Restored after \`rm -rf scratch\`: ${restored ? restored.restored.join(", ") || "nothing" : "no trash kept"}.`,
    "",
  );
  return lines.join("\n");
}
