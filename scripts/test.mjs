#!/usr/bin/env node
// `npm test`: the whole suite on a fresh clone. Type check, lint, unit tests, a production build, integration
// tests against the running app on SQLite (and PostgreSQL when TEST_DATABASE_URL_PG is set), then browser
// tests in Debian's Chromium. Ends with one "N passed, N failed" line.
import fs from "node:fs";
import path from "node:path";
import { ensureBubblewrap, ensureDependencies, generateClients, log, nextBin, root, run, which } from "./lib/bootstrap.mjs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
process.env.AUTH_SECRET ||= "toolgate-test-secret-0123456789abcdef";
delete process.env.DATABASE_URL; // tests choose their own databases
const bin = (name) => path.join(root, "node_modules/.bin", name);
const results = path.join(root, "test-results");

function ensureChromium() {
  const wanted = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (fs.existsSync(wanted)) return wanted;
  if (process.getuid?.() === 0 && which("apt-get")) {
    log("installing Debian's chromium for the browser tests (apt-get)…");
    run("apt-get", ["update", "-qq"], { allowFail: true });
    run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "chromium"], { env: { DEBIAN_FRONTEND: "noninteractive" } });
    if (fs.existsSync(wanted)) return wanted;
  }
  throw new Error(
    `Chromium is missing at ${wanted}. Install it with \`sudo apt-get install chromium\` (Debian) or set CHROMIUM_PATH to a Chromium binary.`,
  );
}

function countVitest(file) {
  const report = JSON.parse(fs.readFileSync(file, "utf8"));
  // A file that fails to load fails no test but the run: count it once so the total cannot read "0 failed".
  const failed = report.numFailedTests || (report.success ? 0 : Math.max(1, report.numFailedTestSuites ?? 0));
  return { passed: report.numPassedTests, failed, skipped: report.numPendingTests };
}

function countPlaywright(file) {
  const stats = JSON.parse(fs.readFileSync(file, "utf8")).stats ?? {};
  return { passed: stats.expected ?? 0, failed: (stats.unexpected ?? 0) + (stats.flaky ?? 0), skipped: stats.skipped ?? 0 };
}

const totals = { passed: 0, failed: 0, skipped: 0 };
let failedSteps = [];
function step(name, fn, counter) {
  log(`── ${name}`);
  const status = fn();
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

ensureDependencies();
ensureBubblewrap();
generateClients();
fs.rmSync(results, { recursive: true, force: true });
fs.mkdirSync(results, { recursive: true });

step("type check", () => run(bin("tsc"), ["--noEmit", "-p", "."], { allowFail: true }));
step("lint", () => run(bin("eslint"), ["."], { allowFail: true }));
step(
  "unit tests",
  () => run(bin("vitest"), ["run", "--project", "unit", "--reporter=default", "--reporter=json", `--outputFile=${results}/unit.json`], { allowFail: true }),
  () => countVitest(`${results}/unit.json`),
);
const built = step("build", () => run(nextBin(), ["build"], { allowFail: true })) === 0;
if (built) {
  step(
    "integration tests",
    () =>
      run(bin("vitest"), ["run", "--project", "integration", "--reporter=default", "--reporter=json", `--outputFile=${results}/integration.json`], {
        allowFail: true,
      }),
    () => countVitest(`${results}/integration.json`),
  );
  let chromium;
  try {
    chromium = ensureChromium();
  } catch (error) {
    console.error(`[toolgate] ${error.message}`);
    failedSteps.push("browser tests (no Chromium)");
  }
  if (chromium) {
    step("browser tests", () => run(bin("playwright"), ["test"], { allowFail: true, env: { CHROMIUM_PATH: chromium } }), () =>
      countPlaywright(`${results}/e2e.json`),
    );
  }
}

if (failedSteps.length) console.error(`[toolgate] failed: ${failedSteps.join(", ")}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedSteps.length ? 1 : 0);
