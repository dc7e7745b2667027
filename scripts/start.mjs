#!/usr/bin/env node
// `npm start`: install what is missing, validate configuration, prepare the database (migrations + demo
// users on the embedded SQLite), build, and serve on PORT (default 3000). Running it again keeps data.
import { ensureAuthSecret, ensureBubblewrap, ensureDependencies, generateClients, log, migrate, nextBin, run, tsx } from "./lib/bootstrap.mjs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
ensureDependencies();
ensureAuthSecret();
ensureBubblewrap();
process.env.DATABASE_URL ||= "file:./data/toolgate.db";
process.env.NODE_ENV = "production";
tsx("scripts/check-config.ts");
generateClients();
log(`applying migrations to ${process.env.DATABASE_URL.replace(/\/\/[^@]*@/, "//***@")}…`);
migrate(process.env.DATABASE_URL);
tsx("scripts/seed.ts");
log("building…");
run(nextBin(), ["build"]);
const port = process.env.PORT || "3000";
log(`serving on http://localhost:${port}`);
run(nextBin(), ["start", "-p", port]);
