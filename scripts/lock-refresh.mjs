#!/usr/bin/env node
// `npm run lock:refresh`: rewrites package-lock.json so `npm ci` accepts it on every platform. Run it after
// changing dependencies or merging branches that did (a merged lock is resolved again from package.json).
//   1. In a scratch directory holding only package.json and the current lock (no node_modules, which makes npm
//      drop other platforms' optional packages: npm/cli#4828), `npm install --package-lock-only` resolves what
//      package.json asks for and keeps every locked version that still fits.
//   2. Optional dependencies that npm still left out (the registry reachable here lacks some platform builds)
//      are filled in from the registry's manifest, or, when it has none, from the exact version the parent
//      pins and the platform its name states (scripts/lib/lockfile.mjs).
//   3. `npm ci --dry-run` in the scratch directory must accept the result before it replaces the lock.
// `--fresh` starts from no lock at all (every dependency re-resolved to the newest version package.json allows).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { root, log } from "./lib/bootstrap.mjs";
import { findMissingOptional, lockEntryFor, placeEntry, sortPackages } from "./lib/lockfile.mjs";

const fresh = process.argv.includes("--fresh");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-lock-"));
const npm = (args, opts = {}) => spawnSync("npm", args, { cwd: scratch, stdio: "inherit", ...opts });

function view(spec, fields) {
  try {
    const out = execFileSync("npm", ["view", spec, ...fields, "--json"], {
      cwd: scratch,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    if (!out.trim()) return null;
    const parsed = JSON.parse(out);
    return Array.isArray(parsed) ? parsed.at(-1) : parsed; // a range answers with every match: take the newest
  } catch {
    return null; // 404: the registry has no such package or version
  }
}

try {
  fs.copyFileSync(path.join(root, "package.json"), path.join(scratch, "package.json"));
  const currentLock = path.join(root, "package-lock.json");
  if (!fresh && fs.existsSync(currentLock)) fs.copyFileSync(currentLock, path.join(scratch, "package-lock.json"));

  log(`resolving the lock in ${scratch} (npm install --package-lock-only)…`);
  if (npm(["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"]).status !== 0) {
    throw new Error("npm install --package-lock-only failed");
  }

  const lockFile = path.join(scratch, "package-lock.json");
  const lock = JSON.parse(fs.readFileSync(lockFile, "utf8"));
  const missing = findMissingOptional(lock);
  log(`${missing.length} optional platform package(s) missing from npm's lock; filling them in`);
  for (const item of missing) {
    const manifest = view(`${item.name}@${item.spec}`, ["version", "dist.integrity", "os", "cpu", "libc", "license"]);
    // Another version's manifest still tells the platform: os/cpu never change across a binding's versions.
    const platformManifest = manifest ? null : view(item.name, ["os", "cpu", "libc"]);
    const key = placeEntry(lock.packages, item);
    lock.packages[key] = lockEntryFor(
      item,
      manifest && { ...manifest, dist: { integrity: manifest["dist.integrity"] } },
      platformManifest,
    );
    console.log(
      `  ${key}@${lock.packages[key].version}${manifest ? "" : " (not in this registry: version from its parent, platform from another version or its name)"}`,
    );
  }
  lock.packages = sortPackages(lock.packages);
  fs.writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);

  const left = findMissingOptional(lock);
  if (left.length) throw new Error(`still missing: ${left.map((m) => m.name).join(", ")}`);
  log("checking that npm ci accepts it (npm ci --dry-run)…");
  if (
    npm(["ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], { stdio: ["ignore", "ignore", "inherit"] })
      .status !== 0
  ) {
    throw new Error("npm ci --dry-run refused the refreshed lock");
  }
  fs.copyFileSync(lockFile, currentLock);
  log("package-lock.json refreshed; install it with npm ci");
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
