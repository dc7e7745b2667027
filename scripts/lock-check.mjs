#!/usr/bin/env node
// `npm run lock:check` (also the first step of `npm test`): fails when package-lock.json is out of sync with
// package.json or would be refused by `npm ci` on some platform. The fix is always `npm run lock:refresh`.
//   - the lock's root entry must list exactly package.json's dependency ranges (npm ci tolerates a changed range
//     the locked version still satisfies; we do not, so the lock never silently lags package.json);
//   - every optional dependency of a locked package has an entry (the other platforms' native builds);
//   - `npm ci --dry-run`, in a scratch directory so node_modules is untouched, accepts the pair.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { log, root } from "./lib/bootstrap.mjs";
import { findMissingOptional, rootDrift } from "./lib/lockfile.mjs";

const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
let lock;
try {
  lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8"));
} catch (error) {
  console.error(`[toolgate] package-lock.json is missing or not JSON (${error.message}): run npm run lock:refresh`);
  process.exit(1);
}

const problems = [
  ...rootDrift(pkg, lock),
  ...findMissingOptional(lock).map(
    (m) => `missing optional ${m.name}@${m.spec} (needed by ${m.from.replace(/^node_modules\//, "")})`,
  ),
];
if (!problems.length) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-lock-check-"));
  try {
    for (const f of ["package.json", "package-lock.json"]) fs.copyFileSync(path.join(root, f), path.join(scratch, f));
    const ci = spawnSync("npm", ["ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: scratch,
      encoding: "utf8",
    });
    if (ci.status !== 0)
      problems.push(
        `npm ci --dry-run refuses it:\n${ci.stderr
          .split("\n")
          .filter((l) => l.startsWith("npm error") && !/^npm error\s*$/.test(l))
          .slice(0, 12)
          .join("\n")}`,
      );
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (problems.length) {
  console.error(
    `[toolgate] package-lock.json is out of sync with package.json:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
  );
  console.error("[toolgate] run `npm run lock:refresh` and commit package-lock.json");
  process.exit(1);
}
log("package-lock.json is in sync with package.json and complete for every platform");
