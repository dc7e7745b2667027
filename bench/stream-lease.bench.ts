// Issue 29: what the cross-instance stream cap costs. Each open event stream writes a lease row and trims the user's
// leases past the cap (lib/events/stream-cap.ts); each instance renews all its leases every third of
// EVENT_STREAM_LEASE_SECONDS. Measured through the real functions, in a worker process per database (lib/config reads
// DATABASE_URL once per process). `npx tsx --conditions=react-server bench/stream-lease.bench.ts` (PostgreSQL too
// when TEST_DATABASE_URL_PG names a server); opt-in section of `npm run bench -- stream-lease`.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { admitStream, renewStreamLeasesNow } from "@/lib/events/stream-cap";
import { getDb } from "@/lib/db/client";
import { newPostgresUrl, newSqliteUrl, prepareDatabase } from "../tests/support/databases";
import { stats } from "./stats";

const ROOT = path.resolve(__dirname, "..");
const OPENS = 500;
const HELD = 1_000;
const RENEWALS = 30;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

type Result = {
  open: ReturnType<typeof stats>;
  openPastCap: ReturnType<typeof stats>;
  renew: ReturnType<typeof stats>;
};

async function work(): Promise<Result> {
  const db = getDb();
  const users = await Promise.all(
    Array.from({ length: 101 }, (_, i) =>
      db.user.create({ data: { email: `lease-${i}-${Date.now()}@example.com`, passwordHash: "x" } }),
    ),
  );
  const evict = () => undefined;
  // Under the cap: 100 users, 10 streams each (1,000 held, the renewal's load).
  const open: number[] = [];
  for (let i = 0; i < HELD; i++) {
    const t = process.hrtime.bigint();
    await admitStream(users[i % 100]!.id, { evict });
    open.push(ms(t));
  }
  // One user past the cap of 32: every opening also deletes (and evicts) the oldest.
  const past: number[] = [];
  const heavy = users[100]!.id;
  for (let i = 0; i < OPENS; i++) {
    const t = process.hrtime.bigint();
    await admitStream(heavy, { evict }, 32);
    past.push(ms(t));
  }
  const renew: number[] = [];
  for (let i = 0; i < RENEWALS; i++) {
    const t = process.hrtime.bigint();
    if (!(await renewStreamLeasesNow())) throw new Error("a renewal failed");
    renew.push(ms(t));
  }
  return { open: stats(open), openPastCap: stats(past), renew: stats(renew) };
}

function worker(databaseUrl: string): Result {
  const out = execFileSync(
    path.join(ROOT, "node_modules/.bin/tsx"),
    ["--conditions=react-server", "bench/stream-lease.bench.ts", "--worker"],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        NODE_ENV: "production",
        AUTH_SECRET: "bench-only-secret-0123456789abcdef",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  ).toString();
  const last = out
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .at(-1);
  if (!last) throw new Error(`the worker printed no result:\n${out}`);
  return JSON.parse(last) as Result;
}

export async function runStreamLeaseBench(): Promise<string> {
  const rows: string[] = [];
  const targets: Array<[string, () => Promise<{ url: string; drop?: () => Promise<void> }>]> = [
    ["SQLite", async () => ({ url: newSqliteUrl() })],
  ];
  if (process.env.TEST_DATABASE_URL_PG)
    targets.push(["PostgreSQL", () => newPostgresUrl(process.env.TEST_DATABASE_URL_PG!)]);
  for (const [label, make] of targets) {
    const target = await make();
    try {
      prepareDatabase(target.url);
      const r = worker(target.url);
      const f = (s: { p50: number; p99: number }) => `${s.p50.toFixed(2)} / ${s.p99.toFixed(2)} ms`;
      rows.push(`| ${label} | ${f(r.open)} | ${f(r.openPastCap)} | ${f(r.renew)} |`);
      console.error(rows.at(-1));
    } finally {
      await target.drop?.();
    }
  }
  return [
    "## Event stream leases (issue 29, `bench/stream-lease.bench.ts`)",
    "",
    `What the cross-instance stream cap adds, through lib/events/stream-cap.ts on one process: opening a stream (insert the lease, trim the user's leases past the cap; ${HELD.toLocaleString("en")} openings, 100 users under the cap), opening past the cap of 32 (${OPENS} openings by one user: each also deletes and evicts the oldest), and one renewal of all ${HELD.toLocaleString("en")} leases held (one update and one read per 500 ids, plus the sweep of expired rows; ${RENEWALS} renewals). p50 / p99.`,
    "",
    "| database | open (under the cap) | open past the cap | renew 1,000 leases |",
    "|---|---:|---:|---:|",
    ...rows,
    "",
  ].join("\n");
}

if (require.main === module) {
  if (process.argv.includes("--worker")) {
    work().then(
      (r) => {
        console.log(JSON.stringify(r));
        process.exit(0);
      },
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  } else {
    runStreamLeaseBench().then(
      (md) => console.log(md),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  }
}
