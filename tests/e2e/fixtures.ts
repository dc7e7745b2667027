// The browser tests' app: one per Playwright worker (a worker-scoped fixture, not a globalSetup), each on its own
// fresh SQLite database with the demo users and its own workspaces. Workers run different spec files side by side,
// and files that change the global policy, make users or count rows must not see another worker's writes.
// Spec files import `test` and `expect` from here; `baseURL` (and so page.goto("/…"), browser.newContext() and
// page.request) points at the worker's app.
import { expect, test as base } from "@playwright/test";
import { startApp } from "../support/app-server";
import { newSqliteUrl, prepareDatabase, storeVersionOnePolicy } from "../support/databases";

export type E2eApp = {
  url: string;
  /** The SQLite file behind the app, for tests that seed rows with plain SQL. */
  databaseFile: string;
  workspaceRoot: string;
};

// The fixtures' second argument is named `provide`, not Playwright's usual `use`: React's rules-of-hooks lint
// takes any `use(…)` call for the hook.
export const test = base.extend<Record<never, never>, { app: E2eApp }>({
  app: [
    async ({}, provide) => {
      const databaseUrl = newSqliteUrl();
      prepareDatabase(databaseUrl);
      // The browser tests were written for allowlist mode's approvals: an install upgraded from before sandbox mode.
      await storeVersionOnePolicy(databaseUrl);
      const app = await startApp({ databaseUrl });
      try {
        await provide({
          url: app.url,
          databaseFile: databaseUrl.replace(/^file:/, ""),
          workspaceRoot: app.workspaceRoot,
        });
      } finally {
        await app.stop();
      }
    },
    // Starting the app is part of the worker's setup, not of the first test's 60 s.
    { scope: "worker", timeout: 120_000 },
  ],
  baseURL: async ({ app }, provide) => {
    await provide(app.url);
  },
});

export { expect };
