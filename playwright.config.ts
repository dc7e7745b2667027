import fs from "node:fs";
import { defineConfig } from "@playwright/test";
import { CHROMIUM_CANDIDATES } from "./scripts/lib/chromium.mjs";

// Debian's Chromium, its headless shell first (scripts/test.mjs installs it when missing); never a downloaded browser.
const chromium =
  process.env.CHROMIUM_PATH ?? CHROMIUM_CANDIDATES.find((file) => fs.existsSync(file)) ?? CHROMIUM_CANDIDATES[0];
export default defineConfig({
  testDir: "tests/e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // Two workers, each with its own app and database (tests/e2e/fixtures.ts), running different spec files: one
  // worker leaves a core idle while it waits on the app or on a timer. The tests of a file stay in order in one
  // worker. E2E_WORKERS=1 runs them one file at a time.
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  reporter: [["list"], ["json", { outputFile: "test-results/e2e.json" }]],
  // Playwright empties its output folder when it starts: a folder of its own keeps the integration and unit
  // reports that npm test wrote to test-results/ before it (per-file durations for whoever tunes the suite).
  outputDir: "test-results/e2e",
  use: {
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
});
