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
import { parseEgressHosts } from "@/lib/config";
import { NetworkSettingsSchema, type AskedDomain } from "@/lib/policy/egress";
import type { EgressServices } from "@/lib/tools/context";
import { startNpmRegistry } from "./npm-registry";

export const SESSION: readonly string[] = [
  "ls -la",
  "mkdir -p src tests docs scratch",
  "printf 'export function add(a, b) {\\n  return a + b;\\n}\\n' > src/add.js",
  "printf 'v1 notes\\nTODO: fix add\\nv2 notes\\n' > notes.md",
  "printf 'import sys\\nprint(sum(int(x) for x in sys.argv[1:]))\\n' > tools.py",
  "printf '#!/bin/sh\\nset -e\\nfor f in tests/*.sh; do sh \"$f\"; done\\necho all tests passed\\n' > run-tests.sh",
  'printf \'test "$(node -e "console.log(1+2)")" = 3\\n\' > tests/add.sh',
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
  'node -e \'console.log(require("./src/add.js") ? "loaded" : "")\' || true',
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
  const tableEnd = lines.length;
  lines.push("");
  const probe = await probeSandbox();
  if (!probe.ok) {
    lines.push(`The session was not run (bubblewrap cannot start here: ${probe.reason}).`, "");
    return lines.join("\n");
  }
  // Sandbox mode for real: every command through the exec tool in a fresh workspace, then the member restores scratch/.
  const root = mkdtempSync(path.join(os.tmpdir(), "toolgate-bench-fatigue-"));
  const workspaceDir = await ensureWorkspace(path.join(root, "member"));
  // Network by domain: the admin lists the registry (a local fixture standing in for it, reached through
  // EGRESS_HOSTS); every unlisted domain a command tries is an owner request, counted here once per domain as the
  // database-backed services do (tests/integration/exec-egress.test.ts).
  const registry = await startNpmRegistry("http://registry.local.test/");
  const requested = new Set<string>();
  const egress: EgressServices = {
    settings: NetworkSettingsSchema.parse({ allow: [{ domain: "registry.local.test" }] }),
    hosts: parseEgressHosts(`registry.local.test=127.0.0.1:${registry.port}`)!,
    grantsForCommand: async () => ({ patterns: [] }),
    requestDomainApprovals: async ({ asked }: { asked: readonly AskedDomain[] }) =>
      asked.map((a) => {
        const fresh = !requested.has(a.pattern);
        requested.add(a.pattern);
        return { domain: a.pattern, approvalId: `request-${a.pattern}`, ...(fresh ? {} : { note: "already asked" }) };
      }),
  };
  const base = {
    userId: "member",
    sessionId: "fatigue",
    workspaceDir,
    limits: { maxReadBytes: 1, maxWriteBytes: 1 },
    exec: { timeoutMs: 60_000, maxOutputBytes: 65_536 },
    services: {},
    disk: { workspaceQuotaBytes: 512 * 1024 * 1024, maxFileBytes: 64 * 1024 * 1024 },
  };
  const context = { ...base, egress };
  const failed: string[] = [];
  let restoreId: string | null = null;
  const started = Date.now();
  for (const [i, command] of SESSION.entries()) {
    const result = (await execTool.execute({ command }, { callId: `fatigue-${i}`, context } as never)) as {
      exitCode: number | null;
      changes?: { restoreId: string | null } | null;
    };
    if (result.exitCode !== 0) failed.push(command);
    if (command === "rm -rf scratch") restoreId = result.changes?.restoreId ?? null;
  }
  const elapsed = Date.now() - started;
  const restored = restoreId ? await restoreCommand(workspaceDir, restoreId) : null;
  const installed = await import("node:fs").then((fs) =>
    fs.existsSync(path.join(workspaceDir, "node_modules", "left-pad", "package.json")),
  );
  await registry.close();
  const withoutOwner = SESSION.length - failed.filter((c) => c.startsWith("curl")).length;
  lines.splice(
    tableEnd,
    0,
    `| sandbox, run for real with network by domain (registry listed) | ${withoutOwner} | ${requested.size} | 0 |`,
  );
  lines.push(
    `Run for real in sandbox mode (exec tool, bubblewrap, overlay, a per-command egress proxy with \`registry.local.test\` listed and a local registry fixture behind it): ${SESSION.length} commands in ${(elapsed / 1000).toFixed(1)} s; ${withoutOwner} ran without an owner; owner requests: ${requested.size} (${[...requested].join(", ") || "none"}). \`npm install\` ${installed ? "installed left-pad from the listed registry" : "did not install left-pad"} (registry saw ${registry.requests.filter((r) => r.startsWith("GET")).length} GETs). Non-zero exits: ${failed.length ? failed.map((c) => `\`${c.slice(0, 50)}\``).join(", ") : "none"}. Restored after \`rm -rf scratch\`: ${restored ? restored.restored.join(", ") || "nothing" : "no trash kept"}.`,
    "",
  );
  lines.push(await proxyOverhead(base, egress), "");
  return lines.join("\n");
}

/** What the per-command proxy adds to a command's start: `true` with and without it, medians of 15 runs each. */
async function proxyOverhead(base: object, egress: EgressServices): Promise<string> {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const time = async (context: object, i: number) => {
    const t = performance.now();
    await execTool.execute({ command: "true" }, { callId: `overhead-${i}`, context } as never);
    return performance.now() - t;
  };
  const plain: number[] = [];
  const proxied: number[] = [];
  for (let i = 0; i < 15; i++) {
    plain.push(await time(base, i));
    proxied.push(await time({ ...base, egress }, i));
  }
  return `Egress proxy start per command (\`true\` through the exec tool, medians of 15): ${median(plain).toFixed(0)} ms without the proxy, ${median(proxied).toFixed(0)} ms with it (proxy on its socket, socat started and listening inside): +${(median(proxied) - median(plain)).toFixed(0)} ms, on a machine at load average ${os.loadavg()[0]?.toFixed(0)} (shared; the difference moved between +25 and +130 ms over three runs that day).`;
}
