// Integration tests run against the real built app: one `next start` on a fresh SQLite file, and one on a
// fresh PostgreSQL database when TEST_DATABASE_URL_PG is set. Tests get them through inject("apps").
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { ROOT, startApp, TEST_AUTH_SECRET, type RunningApp } from "./app-server";
import { newPostgresUrl, newSqliteUrl, prepareDatabase, storeVersionOnePolicy, type DbKind } from "./databases";

export type AppTarget = { kind: DbKind; url: string; databaseUrl: string; workspaceRoot: string };

declare module "vitest" {
  export interface ProvidedContext {
    apps: AppTarget[];
  }
}

export default async function setup(project: TestProject) {
  if (!fs.existsSync(path.join(ROOT, ".next/BUILD_ID"))) {
    console.log("[toolgate] building the app for integration tests…");
    execFileSync(path.join(ROOT, "node_modules/.bin/next"), ["build"], {
      cwd: ROOT,
      stdio: "inherit",
      env: { AUTH_SECRET: TEST_AUTH_SECRET, ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
  }
  const running: RunningApp[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const targets: AppTarget[] = [];

  const sqliteUrl = newSqliteUrl();
  prepareDatabase(sqliteUrl);
  // The shared apps' tests were written for allowlist mode: they run as an install upgraded from before sandbox mode.
  await storeVersionOnePolicy(sqliteUrl);
  const sqliteApp = await startApp({ databaseUrl: sqliteUrl });
  running.push(sqliteApp);
  targets.push({ kind: "sqlite", url: sqliteApp.url, databaseUrl: sqliteUrl, workspaceRoot: sqliteApp.workspaceRoot });

  const pgBase = process.env.TEST_DATABASE_URL_PG;
  if (pgBase) {
    const pg = await newPostgresUrl(pgBase);
    cleanups.push(pg.drop);
    prepareDatabase(pg.url);
    await storeVersionOnePolicy(pg.url);
    const pgApp = await startApp({ databaseUrl: pg.url });
    running.push(pgApp);
    targets.push({ kind: "postgres", url: pgApp.url, databaseUrl: pg.url, workspaceRoot: pgApp.workspaceRoot });
    console.log(`[toolgate] PostgreSQL integration tests enabled (${pg.url.replace(/\/\/[^@]*@/, "//***@")})`);
  } else {
    console.log("[toolgate] TEST_DATABASE_URL_PG is not set: PostgreSQL integration tests are skipped");
  }

  project.provide("apps", targets);

  return async () => {
    for (const app of running) await app.stop();
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  };
}
