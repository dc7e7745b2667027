#!/usr/bin/env node
// `npm start`: install the locked dependencies when node_modules does not match the lock, validate
// configuration, prepare the database (migrations + demo users on the embedded SQLite), build when the sources
// changed since the last build, and serve on PORT (default 3000). Each phase prints its elapsed time. Running it
// again keeps data and skips what is already done.
import { ensureAuthSecret, ensureBubblewrap, ensureBuild, ensureDependencies, generateClients, log, migrate, phase, run, tsx } from "./lib/bootstrap.mjs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
await ensureDependencies();
ensureAuthSecret();
ensureBubblewrap();
process.env.DATABASE_URL ||= "file:./data/toolgate.db";
process.env.NODE_ENV = "production";
phase("check configuration", () => tsx("scripts/check-config.ts"));
generateClients();
phase(`migrate ${process.env.DATABASE_URL.replace(/\/\/[^@]*@/, "//***@")}`, () => migrate(process.env.DATABASE_URL));
phase("seed", () => tsx("scripts/seed.ts"));
await ensureBuild();
const port = process.env.PORT || "3000";
log(`▶ serve on http://localhost:${port}`);
run(process.execPath, ["scripts/server.mjs", "-p", port]);
