// Starts the built app on a fresh SQLite database with the demo users for the browser tests.
import fs from "node:fs";
import path from "node:path";
import { startApp } from "../support/app-server";
import { newSqliteUrl, prepareDatabase } from "../support/databases";

export default async function globalSetup() {
  const databaseUrl = newSqliteUrl();
  prepareDatabase(databaseUrl);
  const app = await startApp({ databaseUrl });
  process.env.E2E_BASE_URL = app.url;
  process.env.E2E_DATABASE_URL = databaseUrl;
  process.env.E2E_WORKSPACE_ROOT = app.workspaceRoot;
  fs.mkdirSync(path.resolve("test-results"), { recursive: true });
  return async () => {
    await app.stop();
  };
}
