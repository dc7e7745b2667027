#!/usr/bin/env node
// `npm start`: install the locked dependencies when node_modules does not match the lock, validate
// configuration, prepare the database (migrations + demo users on the embedded SQLite), build when the sources
// changed since the last build, and serve on PORT (default 3000). Each phase prints one line with its time; other
// programs' output is shown only when they fail (TOOLGATE_VERBOSE=1 shows it all). The address and the demo
// logins are the last lines before "Ready". Running it again keeps data and skips what is already done.
import {
  ensureAuthSecret,
  ensureBubblewrap,
  ensureBuild,
  ensureDependencies,
  generateClients,
  log,
  migrate,
  phase,
  run,
  runQuietSync,
  tsx,
} from "./lib/bootstrap.mjs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
await ensureDependencies();
ensureAuthSecret();
ensureBubblewrap();
process.env.DATABASE_URL ||= "file:./data/toolgate.db";
process.env.NODE_ENV = "production";
phase("check configuration", () => tsx("scripts/check-config.ts"));
generateClients();
phase(`migrate ${process.env.DATABASE_URL.replace(/\/\/[^@]*@/, "//***@")}`, () => migrate(process.env.DATABASE_URL));
// The demo logins are kept for the end; anything else the seed says is shown in its phase.
const logins = phase("seed", () => {
  const lines = runQuietSync(tsx.bin, tsx.args("scripts/seed.ts"))
    .split("\n")
    .filter((line) => line.trim());
  for (const line of lines.filter((l) => !l.includes("demo accounts:"))) console.log(line);
  return lines.filter((l) => l.includes("demo accounts:"));
});
await ensureBuild();
const port = process.env.PORT || "3000";
// Printed by the server right before its "Ready" line (scripts/server.mjs), after Next.js's own start-up output.
process.env.TOOLGATE_START_BANNER = [`[toolgate] open http://localhost:${port} and sign in`, ...logins].join("\n");
log(`▶ serve on port ${port}`);
run(process.execPath, ["scripts/server.mjs", "-p", port]);
