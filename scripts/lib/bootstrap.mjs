// Steps shared by `npm start` and `npm test`: dependencies, secrets, Prisma clients, migrations, bubblewrap.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  BUILD_HASH_FILE,
  CLIENT_HASH_FILE,
  buildHash,
  buildIsCurrent,
  clientHash,
  clientsAreCurrent,
  recordHash,
} from "./source-hash.mjs";

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

const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs one named phase of a long command and says how long it took: "▶ build" ... "✓ build (41.2 s, 95.0 s in
 * all)". When output is not a terminal (CI, a pipe), tools show no progress bar, so a line every 20 s says the
 * phase is still running.
 */
export function phase(name, fn) {
  const t0 = Date.now();
  log(`▶ ${name}`);
  const heartbeat = process.stdout.isTTY
    ? null
    : setInterval(() => log(`  … ${name}: ${seconds(Date.now() - t0)}`), 20_000);
  const done = (suffix) => {
    if (heartbeat) clearInterval(heartbeat);
    log(`${suffix} ${name} (${seconds(Date.now() - t0)}, ${seconds(Date.now() - started)} in all)`);
  };
  try {
    const result = fn();
    if (result instanceof Promise) {
      return result.then(
        // A step that ran but failed (an exit code other than 0) is marked as failed, not only counted.
        (value) => (done(typeof value === "number" && value !== 0 ? "✗" : "✓"), value),
        (error) => {
          done("✗");
          throw error;
        },
      );
    }
    done(typeof result === "number" && result !== 0 ? "✗" : "✓");
    return result;
  } catch (error) {
    done("✗");
    throw error;
  }
}

/** Runs a tool, its output kept (`capture`) or passed through; resolves its exit code (1 for a signal) and the output. */
function spawnTool(cmd, args, { env, cwd, capture }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    const chunks = [];
    if (capture) {
      child.stdout.on("data", (c) => chunks.push(c));
      child.stderr.on("data", (c) => chunks.push(c));
    }
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString() }),
    );
  });
}

/**
 * Like `run`, without blocking the event loop (so phase heartbeats print and steps can run side by side).
 * `capture`: keep the output and print it in one piece when the command ends, so steps running in parallel
 * do not interleave their lines.
 */
export async function runAsync(cmd, args, { env = {}, cwd = root, allowFail = false, capture = false } = {}) {
  const { code, output } = await spawnTool(cmd, args, { env, cwd, capture });
  if (output) process.stdout.write(output);
  if (code !== 0 && !allowFail) throw new Error(`${cmd} ${args.join(" ")} exited with ${code}`);
  return code;
}

/**
 * Runs a tool whose output matters only when it fails (npm ci, Prisma, next build): the output is kept and shown
 * whole if the tool fails, so a first start shows its phases, not a few hundred lines of other programs' chatter.
 * TOOLGATE_VERBOSE=1 shows everything as it comes.
 */
export async function runQuiet(cmd, args, { env = {}, cwd = root } = {}) {
  if (process.env.TOOLGATE_VERBOSE === "1")
    return { code: await runAsync(cmd, args, { env, cwd, allowFail: true }), output: "" };
  const { code, output } = await spawnTool(cmd, args, { env, cwd, capture: true });
  if (code !== 0) process.stdout.write(output);
  return { code, output };
}

/** runQuiet for the synchronous steps; throws (after showing the output) when the tool fails. */
export function runQuietSync(cmd, args, { env = {}, cwd = root } = {}) {
  if (process.env.TOOLGATE_VERBOSE === "1") return (run(cmd, args, { env, cwd }), "");
  const result = spawnSync(cmd, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  if (result.status !== 0) {
    process.stdout.write(output);
    throw new Error(`${cmd} ${args.join(" ")} exited with ${result.status ?? result.signal}`);
  }
  return output;
}

const LOCK_HASH_FILE = "node_modules/.toolgate-lock-hash";

function lockHash() {
  return crypto
    .createHash("sha256")
    .update(fs.readFileSync(path.join(root, "package-lock.json")))
    .digest("hex");
}

/** True when node_modules holds what package-lock.json describes (recorded after the last npm ci). */
export function dependenciesAreCurrent() {
  try {
    return fs.readFileSync(path.join(root, LOCK_HASH_FILE), "utf8").trim() === lockHash();
  } catch {
    return false;
  }
}

/**
 * Installs exactly the locked dependencies with `npm ci` when node_modules was not installed from the current
 * lock (compared by content, so a checkout that only touches the lock's mtime installs nothing). npm's own
 * progress stays visible. A lock that does not match package.json stops here with npm's message: run
 * `npm run lock:refresh`.
 */
export async function ensureDependencies() {
  if (dependenciesAreCurrent()) {
    log("dependencies match package-lock.json: nothing to install");
    return false;
  }
  // --prefer-offline: every locked package is pinned by version and integrity hash, so what npm's cache holds
  // is what the registry would send; asking the registry about each of ~800 packages took most of the install.
  // A cache too old to know a newly locked version fails that install (npm does not re-ask): then once online.
  await phase("install dependencies (npm ci)", async () => {
    const summary = (output) =>
      output.split("\n").findLast((line) => /\b(added|removed|changed) \d+ packages?\b/.test(line));
    const cached = await runQuiet("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"]);
    if (cached.code === 0) return void log(`  ${summary(cached.output) ?? "installed"}`);
    log("npm ci from the cache failed: installing again, asking the registry");
    const online = await runQuiet("npm", ["ci", "--no-audit", "--no-fund"]);
    if (online.code !== 0) throw new Error(`npm ci exited with ${online.code}`);
    log(`  ${summary(online.output) ?? "installed"}`);
  });
  fs.writeFileSync(path.join(root, LOCK_HASH_FILE), `${lockHash()}\n`);
  cacheNativeBuild("better-sqlite3", "build/Release/better_sqlite3.node");
  return true;
}

/**
 * better-sqlite3's installer (prebuild-install) looks for a prebuilt binary in npm's cache (~/.npm/_prebuilds)
 * before downloading one from GitHub, and compiles SQLite from source (about a minute) when neither works, which is
 * every time on a machine without GitHub access. After such a compile, the binary is stored there under the name
 * of the download it stands for (package version, Node ABI, platform, architecture, libc), so the next install of
 * the same version on this machine takes it instead of compiling again. Best effort: a failure only costs that minute.
 */
function cacheNativeBuild(pkg, binary) {
  const dir = path.join(root, "node_modules", pkg);
  if (!fs.existsSync(path.join(dir, binary))) return;
  try {
    // prebuild-install's own functions name the cache entry, run from the package's directory as npm runs them.
    const script = `const req = require("module").createRequire(process.cwd() + "/package.json");
      const util = req("prebuild-install/util"), pkg = require(process.cwd() + "/package.json");
      process.stdout.write(util.cachedPrebuild(util.getDownloadUrl({ ...req("prebuild-install/rc")(pkg), pkg })));`;
    const cached = execFileSync(process.execPath, ["-e", script], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    if (!cached || fs.existsSync(cached)) return;
    fs.mkdirSync(path.dirname(cached), { recursive: true });
    // Written aside and renamed into place: a concurrent install sees no entry or a whole one.
    const partial = `${cached}.${process.pid}.tmp`;
    execFileSync("tar", ["-czf", partial, "-C", dir, binary]);
    fs.renameSync(partial, cached);
    log(`kept the compiled ${pkg} binary in npm's cache for the next install (${cached})`);
  } catch (error) {
    log(`could not keep the compiled ${pkg} binary: ${error.message}`);
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

/** Generates both Prisma clients unless they were generated from the same schema and versions. */
export function generateClients() {
  const hash = clientHash(root);
  if (clientsAreCurrent(root, hash)) {
    log("Prisma clients match prisma/schema.base.prisma: not regenerating");
    return false;
  }
  phase("Prisma generate", () => runQuietSync("node", ["scripts/db.mjs", "generate"]));
  recordHash(root, CLIENT_HASH_FILE, hash);
  return true;
}

/** Builds with `next build` unless the build in .next/ came from the same sources (hash stored beside it). */
export async function ensureBuild({ allowFail = false, env = {} } = {}) {
  const hash = buildHash(root);
  if (buildIsCurrent(root, hash)) {
    log("sources unchanged since the last build: skipping next build");
    return 0;
  }
  const status = await phase("build (next build)", async () => {
    const { code, output } = await runQuiet(nextBin(), ["build"], { env });
    if (code !== 0 && !allowFail) throw new Error(`next build exited with ${code}`);
    // What the build warns about is worth reading (it is fixed at the source, not hidden): shown when there is any.
    const warnings = output.split("\n").filter((line) => /^\s*(⚠|Warning:)|encountered \d+ warnings?/.test(line));
    if (code === 0 && warnings.length > 0)
      log(
        `  next build warned (npm run build shows the details):\n${warnings.map((w) => `    ${w.trim()}`).join("\n")}`,
      );
    return code;
  });
  if (status === 0) recordHash(root, BUILD_HASH_FILE, hash);
  return status;
}

/** Applies the migrations the database lacks; says how many, or that it was up to date. */
export function migrate(databaseUrl) {
  const output = runQuietSync("node", ["scripts/db.mjs", "migrate"], { env: { DATABASE_URL: databaseUrl } });
  const applied = output.includes("have been applied") ? (output.match(/└─ \d+_[^/\s]+\//g) ?? []).length : 0;
  log(applied > 0 ? `  ${applied} migration${applied === 1 ? "" : "s"} applied` : "  the database is up to date");
}

export function tsx(script, env = {}) {
  return run(tsx.bin, tsx.args(script), { env });
}
tsx.bin = path.join(root, "node_modules/.bin/tsx");
// react-server: lets lib/db's `import "server-only"` load outside Next.js.
tsx.args = (script) => ["--conditions=react-server", script];

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
      run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "bubblewrap"], {
        env: { DEBIAN_FRONTEND: "noninteractive" },
        allowFail: true,
      });
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

/**
 * nginx runs the deployment test's balancer (tests/integration/ops-deploy.test.ts, docs/deploy.md). Installed from
 * Debian's packages (nginx-light) as bubblewrap is, when we are root; otherwise that test skips with a message.
 * Only the binary is used: the test starts nginx with a configuration and a port of its own.
 */
export function ensureNginx() {
  const found = () => which("nginx") ?? (fs.existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : null);
  if (found()) return true;
  if (process.getuid?.() === 0 && which("apt-get")) {
    log("installing nginx for the deployment test (apt-get install nginx-light)…");
    try {
      run("apt-get", ["update", "-qq"], { allowFail: true });
      run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "nginx-light"], {
        env: { DEBIAN_FRONTEND: "noninteractive" },
        allowFail: true,
      });
    } catch (error) {
      log(`could not run apt-get: ${error.message}`);
    }
    if (found()) return true;
  }
  log("nginx is missing: the three-instance deployment test will be skipped (`sudo apt-get install nginx-light`).");
  return false;
}
