// Steps shared by `npm start` and `npm test`: dependencies, secrets, Prisma clients, migrations, bubblewrap.
import { execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export function log(message) {
  console.log(`[toolgate] ${message}`);
}

export function run(cmd, args, { env = {}, cwd = root, allowFail = false } = {}) {
  const result = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: "inherit" });
  if (result.status !== 0 && !allowFail) {
    throw new Error(`${cmd} ${args.join(" ")} exited with ${result.status ?? result.signal}`);
  }
  return result.status ?? 1;
}

function newer(a, b) {
  return fs.existsSync(a) && (!fs.existsSync(b) || fs.statSync(a).mtimeMs > fs.statSync(b).mtimeMs);
}

/**
 * Installs dependencies when node_modules is missing or older than the lock file. `npm install`, not `npm ci`:
 * npm 11 writes lock files without the other platforms' optional packages and `npm ci` then refuses them as
 * "out of sync", while `npm install` installs exactly the locked versions.
 */
export function ensureDependencies() {
  const marker = path.join(root, "node_modules/.package-lock.json");
  const lock = path.join(root, "package-lock.json");
  if (!fs.existsSync(marker) || newer(lock, marker)) {
    log("installing dependencies (npm install)…");
    run("npm", ["install", "--no-audit", "--no-fund"]);
  }
}

/** AUTH_SECRET from the environment, or one generated once and kept in data/auth-secret. */
export function ensureAuthSecret() {
  if (process.env.AUTH_SECRET) return process.env.AUTH_SECRET;
  const file = path.join(root, "data/auth-secret");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!fs.existsSync(file)) fs.writeFileSync(file, crypto.randomBytes(32).toString("base64url"), { mode: 0o600 });
  process.env.AUTH_SECRET = fs.readFileSync(file, "utf8").trim();
  return process.env.AUTH_SECRET;
}

export function generateClients() {
  log("generating Prisma clients…");
  run("node", ["scripts/db.mjs", "generate"]);
}

export function migrate(databaseUrl) {
  run("node", ["scripts/db.mjs", "migrate"], { env: { DATABASE_URL: databaseUrl } });
}

export function tsx(script, env = {}) {
  // react-server: lets lib/db's `import "server-only"` load outside Next.js.
  return run(path.join(root, "node_modules/.bin/tsx"), ["--conditions=react-server", script], { env });
}

export function nextBin() {
  return path.join(root, "node_modules/.bin/next");
}

export function which(bin) {
  try {
    return execFileSync("sh", ["-c", `command -v ${bin}`], { encoding: "utf8" }).trim() || null;
  } catch {
    return null;
  }
}

/**
 * bubblewrap runs `exec` in sandboxed sessions (lib/tools/sandbox.ts). Installed with apt-get when we are root;
 * otherwise a clear message. Never fails start-up: without bwrap, sandboxed exec is refused (fails closed).
 */
export function ensureBubblewrap() {
  if (which("bwrap")) return true;
  if (process.getuid?.() === 0 && which("apt-get")) {
    log("installing bubblewrap for sandboxed sessions (apt-get)…");
    try {
      run("apt-get", ["update", "-qq"], { allowFail: true });
      run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "bubblewrap"], { env: { DEBIAN_FRONTEND: "noninteractive" }, allowFail: true });
    } catch (error) {
      log(`could not run apt-get: ${error.message}`);
    }
    if (which("bwrap")) return true;
  }
  log(
    "bubblewrap (bwrap) is missing: exec in sandboxed sessions will be refused until it is installed " +
      "(`sudo apt-get install bubblewrap` on Debian/Ubuntu). Everything else works.",
  );
  return false;
}
