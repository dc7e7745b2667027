#!/usr/bin/env node
// `npm run bench`: builds the app when the sources changed since the last build (the approvals benchmark
// serves it), then runs every benchmark and writes BENCHMARKS.md with the machine and the date.
import path from "node:path";
import { ensureAuthSecret, ensureBuild, ensureDependencies, generateClients, root, run } from "./lib/bootstrap.mjs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
await ensureDependencies();
ensureAuthSecret();
generateClients();
await ensureBuild();
// `npm run bench -- sse` (or `npm run bench:cluster`) runs named sections only and splices them into BENCHMARKS.md.
run(path.join(root, "node_modules/.bin/tsx"), ["--conditions=react-server", "bench/run.ts", ...process.argv.slice(2)]);
