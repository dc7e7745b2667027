#!/usr/bin/env node
// `npm test`: the whole suite on a fresh clone. Lock check, then type check, lint, format check and unit tests side by side
// with the production build (skipped when the sources match the last build), then integration tests against the
// running app on SQLite (and PostgreSQL when TEST_DATABASE_URL_PG is set), then browser tests in Debian's
// Chromium (installed while the build runs). Ends with one "N passed, N failed" line. Steps that can overlap do
// (two cores): see below.
// `npm run test:fast` (--fast): lock check, types, lint and unit tests only.
import fs from "node:fs";
import path from "node:path";
import {
  ensureBubblewrap,
  ensureBuild,
  ensureNginx,
  ensureDependencies,
  generateClients,
  log,
  phase,
  root,
  runAsync,
  which,
} from "./lib/bootstrap.mjs";
import { CHROMIUM_CANDIDATES } from "./lib/chromium.mjs";
import { BUILD_HASH_FILE, buildHash, buildIsCurrent } from "./lib/source-hash.mjs";

const fast = process.argv.includes("--fast");
process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.AUTH_SECRET ||= "toolgate-test-secret-0123456789abcdef";
delete process.env.DATABASE_URL; // tests choose their own databases
const bin = (name) => path.join(root, "node_modules/.bin", name);
const results = path.join(root, "test-results");

/**
 * Debian's Chromium for the browser tests: its headless shell (chromium-headless-shell, the same engine without
 * the desktop browser around it) when there, else the full browser. The shell ran the browser tests in about two
 * thirds of the time on two cores. Installed (apt-get, as root) while the build runs when neither is there.
 * CHROMIUM_PATH names another binary.
 */
async function ensureChromium() {
  if (process.env.CHROMIUM_PATH) {
    if (fs.existsSync(process.env.CHROMIUM_PATH)) return process.env.CHROMIUM_PATH;
    throw new Error(`CHROMIUM_PATH names ${process.env.CHROMIUM_PATH}, which does not exist.`);
  }
  const found = () => CHROMIUM_CANDIDATES.find((file) => fs.existsSync(file));
  if (found()) return found();
  if (process.getuid?.() === 0 && which("apt-get")) {
    log("installing Debian's chromium-headless-shell for the browser tests (apt-get)…");
    await runAsync("apt-get", ["update", "-qq"], { allowFail: true, capture: true });
    // The full browser when the shell's package is not in this Debian's archive.
    for (const pkg of ["chromium-headless-shell", "chromium"]) {
      await runAsync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", pkg], {
        allowFail: true,
        capture: true,
        env: { DEBIAN_FRONTEND: "noninteractive" },
      });
      if (found()) return found();
    }
  }
  throw new Error(
    "Chromium is missing. Install it with `sudo apt-get install chromium-headless-shell` (or chromium; Debian) or set CHROMIUM_PATH to a Chromium binary.",
  );
}

let buildDone = false;
/**
 * Waits until the build that started at `since` has written the route types (the last of them is root-params.d.ts,
 * written whole before the compile starts), or has ended (a failed build may never write them).
 */
async function routeTypesWritten(since) {
  const last = path.join(root, ".next/types/root-params.d.ts");
  const written = () => {
    try {
      return fs.statSync(last).mtimeMs >= since - 1000;
    } catch {
      return false;
    }
  };
  while (!written() && !buildDone) await new Promise((r) => setTimeout(r, 200));
  // The file is written in one call; a moment more lets that call finish.
  await new Promise((r) => setTimeout(r, 200));
}

function countVitest(file) {
  const report = JSON.parse(fs.readFileSync(file, "utf8"));
  // A file that fails to load fails no test but the run: count it once so the total cannot read "0 failed".
  const failed = report.numFailedTests || (report.success ? 0 : Math.max(1, report.numFailedTestSuites ?? 0));
  return { passed: report.numPassedTests, failed, skipped: report.numPendingTests };
}

function countPlaywright(file) {
  const stats = JSON.parse(fs.readFileSync(file, "utf8")).stats ?? {};
  return {
    passed: stats.expected ?? 0,
    failed: (stats.unexpected ?? 0) + (stats.flaky ?? 0),
    skipped: stats.skipped ?? 0,
  };
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const failedSteps = [];
/** One step of the suite: runs, times itself, adds its counts, and records a failure without stopping the rest. */
async function step(name, fn, counter) {
  const status = await phase(name, fn).catch((error) => {
    console.error(`[toolgate] ${name}: ${error.message}`);
    return 1;
  });
  if (counter) {
    try {
      const c = counter();
      totals.passed += c.passed;
      totals.failed += c.failed;
      totals.skipped += c.skipped;
    } catch {
      if (status !== 0) totals.failed += 1;
    }
  }
  if (status !== 0) failedSteps.push(name);
  return status;
}

const vitest =
  (project, capture = false) =>
  () =>
    runAsync(
      bin("vitest"),
      ["run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile=${results}/${project}.json`],
      { allowFail: true, capture },
    );

// The lock first: with a lock out of sync, `npm ci` below would fail with a less helpful message.
if (
  (await step("lock file in sync (npm run lock:check)", () =>
    runAsync("node", ["scripts/lock-check.mjs"], { allowFail: true }),
  )) !== 0
) {
  console.log("0 passed, 1 failed, 0 skipped");
  process.exit(1);
}
await ensureDependencies();
ensureBubblewrap(); // the exec and sandbox unit tests run real commands in it
if (!fast) ensureNginx(); // the deployment test's balancer (integration only)
generateClients();
fs.rmSync(results, { recursive: true, force: true });
fs.mkdirSync(results, { recursive: true });

// Type check, lint and unit tests are single-threaded for most of their run; on two cores they overlap with
// each other and with the build instead of waiting in line.
// The build would type-check the app a second time (about 17 s of the build's own time, at its end): the type
// check below covers everything it does, route types included, so the build skips it (TOOLGATE_BUILD_TYPES_CHECKED,
// read in next.config.ts). Those route types (.next/types) are written by the build in its first seconds, after it
// has emptied .next/; the type check starts once they are there. `npm start` builds with its own type check.
const building = !fast && !buildIsCurrent(root, buildHash(root));
const buildStarted = Date.now();
const typesCheck = async () => {
  if (building) await routeTypesWritten(buildStarted);
  typesStatus = await runAsync(bin("tsc"), ["--noEmit", "-p", "."], { allowFail: true, capture: true });
  return typesStatus;
};
let typesStatus = 0;
const checks = Promise.all([
  step("type check", typesCheck),
  // Cached by file content (node_modules/.cache, so a fresh clone starts empty): a second run lints only what changed.
  step("lint", () =>
    runAsync(
      bin("eslint"),
      [".", "--cache", "--cache-strategy", "content", "--cache-location", "node_modules/.cache/eslint/"],
      { allowFail: true, capture: true },
    ),
  ),
  step("unit tests", vitest("unit", true), () => countVitest(`${results}/unit.json`)),
  // One layout for every file (npm run format writes it); cached like lint.
  step("format (npm run format:check)", () =>
    runAsync(
      bin("prettier"),
      [
        ".",
        "--check",
        "--log-level",
        "warn",
        "--cache",
        "--cache-strategy",
        "content",
        "--cache-location",
        "node_modules/.cache/prettier/cache",
      ],
      { allowFail: true, capture: true },
    ),
  ),
]);
const chromiumReady = fast ? Promise.resolve(null) : ensureChromium();
chromiumReady.catch(() => undefined); // awaited (and reported) before the browser tests
const build = fast
  ? Promise.resolve(null)
  : ensureBuild({ allowFail: true, env: building ? { TOOLGATE_BUILD_TYPES_CHECKED: "1" } : {} }).then((status) => {
      if (status !== 0) failedSteps.push("build");
      buildDone = true;
      return status;
    });
const [, built] = await Promise.all([checks, build]);
// A build whose types did not check is not one `npm start` may reuse unchecked: it builds (and checks) again.
if (building && typesStatus !== 0) fs.rmSync(path.join(root, BUILD_HASH_FILE), { force: true });

if (built === 0) {
  // The integration files on the shared apps run one at a time; the files that make their own databases and
  // servers run in a second process beside them (vitest runs projects one after the other, so two processes).
  const chromium = await chromiumReady.catch((error) => {
    console.error(`[toolgate] ${error.message}`);
    failedSteps.push("browser tests (no Chromium)");
    return null;
  });
  await Promise.all([
    step("integration tests (shared apps)", vitest("integration"), () => countVitest(`${results}/integration.json`)),
    step("integration tests (isolated)", vitest("integration-isolated", true), () =>
      countVitest(`${results}/integration-isolated.json`),
    ),
  ]);
  // After them, not beside: run together, the latency checks of both (MCP turn latency, live tabs) missed on two cores.
  if (chromium) {
    await step(
      "browser tests",
      () => runAsync(bin("playwright"), ["test"], { allowFail: true, env: { CHROMIUM_PATH: chromium } }),
      () => countPlaywright(`${results}/e2e.json`),
    );
  }
}

if (failedSteps.length) console.error(`[toolgate] failed: ${failedSteps.join(", ")}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedSteps.length ? 1 : 0);
