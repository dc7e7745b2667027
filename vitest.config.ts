import fs from "node:fs";
import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(__dirname),
  // `server-only` throws outside React Server Components; under vitest the code runs on the server anyway.
  "server-only": path.resolve(__dirname, "tests/support/server-only.ts"),
};

/**
 * Integration files split by what they share. Files that test the apps global-setup starts (they reach them
 * through appTargets() / inject("apps")) share those apps and their databases, and some change the global
 * policy: they run one at a time ("integration"). Every other file makes its own databases and servers
 * ("integration-isolated"), two files at a time; npm test runs that project beside the first.
 */
const integrationFiles = fs
  .readdirSync(path.join(__dirname, "tests/integration"))
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `tests/integration/${f}`);
const usesSharedApps = (file: string) =>
  /\bappTargets\(|\binject\(\s*["']apps["']/.test(fs.readFileSync(path.join(__dirname, file), "utf8"));
const sharedAppFiles = integrationFiles.filter(usesSharedApps);
const isolatedFiles = integrationFiles.filter((f) => !usesSharedApps(f));
const integration = { environment: "node" as const, testTimeout: 60_000, hookTimeout: 120_000, fileParallelism: false };

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        // Two workers: vitest's default on a two-core machine is one. 30 s per test: property tests run thousands of
        // cases and the suite runs beside the type check, lint and build, often on a shared machine.
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/support/unit-setup.ts"],
          maxWorkers: 2,
          testTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: sharedAppFiles,
          globalSetup: ["tests/support/global-setup.ts"],
          ...integration,
        },
      },
      {
        resolve: { alias },
        // Each of these files makes its own databases and servers, so two run at once (each in its own process).
        test: {
          name: "integration-isolated",
          include: isolatedFiles,
          ...integration,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
