#!/usr/bin/env node
// `npm run bench`: builds the app when needed (the approvals benchmark serves it), then runs every
// benchmark and writes BENCHMARKS.md with the machine and the date.
import fs from "node:fs";
import path from "node:path";
import { ensureAuthSecret, ensureDependencies, generateClients, nextBin, root, run } from "./lib/bootstrap.mjs";

process.env.NEXT_TELEMETRY_DISABLED = "1";
ensureDependencies();
ensureAuthSecret();
generateClients();
if (!fs.existsSync(path.join(root, ".next/BUILD_ID"))) run(nextBin(), ["build"]);
run(path.join(root, "node_modules/.bin/tsx"), ["--conditions=react-server", "bench/run.ts"]);
