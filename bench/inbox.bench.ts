// Inbox list benchmark (issue 33): the owner's first page of pending requests (GET /api/approvals?status=pending,
// 50 rows) with 1,000 and with 10,000 pending, on SQLite and on PostgreSQL. Two apps per database kind, one per
// size, both warmed up, asked in alternation (so load on the machine falls on both cases alike); then the page
// after the 9,000th request (one keyset query, however deep). Rows are seeded straight into the database.
// Needs `npx next build` first. The PostgreSQL part is skipped when no server answers.
import { startApp, type RunningApp } from "../tests/support/app-server";
import { newPostgresUrl, newSqliteUrl, prepareDatabase, reachablePostgresBase } from "../tests/support/databases";
import { signedIn, type HttpClient } from "../tests/support/http-client";
import { seedApprovals, seedSession } from "../tests/support/inbox-seed";
import { createDb } from "@/lib/db/client";
import { stats } from "./stats";

const PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/postgres";
const SAMPLES = Number(process.env.INBOX_BENCH_SAMPLES ?? 100);
const PAGE = 50;

type Case = { app: RunningApp; owner: HttpClient; drop?: () => Promise<void>; deepCursor: string | null };

async function prepare(url: string, pending: number, drop?: () => Promise<void>): Promise<Case> {
  prepareDatabase(url);
  const db = createDb(url);
  const member = await db.user.findUniqueOrThrow({ where: { email: "member@example.com" } });
  const sessionId = await seedSession(db, { ownerId: member.id, title: "Benchmark chat" });
  const ids = await seedApprovals(db, {
    sessionId,
    requesterId: member.id,
    requests: Array.from({ length: pending }, (_, i) => ({ command: `echo request ${i}` })),
  });
  await db.$disconnect();
  const app = await startApp({ databaseUrl: url });
  const owner = await signedIn(app.url, "owner@example.com");
  // Seeded oldest first: newest first, the 9,000th listed is ids[pending - 9000].
  return { app, owner, drop, deepCursor: pending > 9_000 ? (ids[pending - 9_000] ?? null) : null };
}

async function timed(owner: HttpClient, path: string): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await owner.fetch(path);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function measure(
  kind: string,
  make: () => Promise<{ url: string; drop?: () => Promise<void> }>,
): Promise<string> {
  const small = await make();
  const large = await make();
  const cases = [await prepare(small.url, 1_000, small.drop), await prepare(large.url, 10_000, large.drop)] as const;
  try {
    const first = `/api/approvals?status=pending&limit=${PAGE}`;
    for (let i = 0; i < 10; i++) for (const c of cases) await timed(c.owner, first);
    const samples: [number[], number[]] = [[], []];
    for (let i = 0; i < SAMPLES; i++)
      for (const [k, c] of cases.entries()) samples[k]!.push(await timed(c.owner, first));
    const deep: number[] = [];
    const big = cases[1];
    for (let i = 0; i < SAMPLES / 2; i++) deep.push(await timed(big.owner, `${first}&cursor=${big.deepCursor}`));
    const [s1, s10, sd] = [stats(samples[0]), stats(samples[1]), stats(deep)];
    const row = (label: string, s: ReturnType<typeof stats>) =>
      `| ${kind} | ${label} | ${s.n} | ${s.p50.toFixed(1)} ms | ${s.p99.toFixed(1)} ms |`;
    return [
      row("1,000 pending, first page", s1),
      row("10,000 pending, first page", s10),
      row("10,000 pending, page after the 9,000th", sd),
      `| ${kind} | **ratio 10,000 / 1,000 (p50)** | | **${(s10.p50 / s1.p50).toFixed(2)}×** | |`,
    ].join("\n");
  } finally {
    for (const c of cases) {
      await c.app.stop();
      await c.drop?.();
    }
  }
}

export async function runInboxBench(): Promise<string> {
  const rows = [await measure("SQLite", async () => ({ url: newSqliteUrl() }))];
  console.error(rows[0]);
  const pg = await reachablePostgresBase(process.env.TEST_DATABASE_URL_PG ?? PG_DEFAULT);
  if (pg) rows.push(await measure("PostgreSQL", () => newPostgresUrl(pg)));
  return [
    "## Inbox list at scale (issue 33)",
    "",
    `GET /api/approvals?status=pending&limit=${PAGE} as the owner (views with risk cues and allow-always previews), over loopback HTTP against the built app; two apps per database (1,000 and 10,000 pending requests), asked in alternation after a warm-up. The deep page is the one after the 9,000th request (its keyset cursor). Done when 10,000 is within 1.3× of 1,000.`,
    "",
    "| database | case | requests | p50 | p99 |",
    "|---|---|---:|---:|---:|",
    ...rows,
    "",
  ].join("\n");
}

if (require.main === module) {
  runInboxBench().then(
    (md) => console.log(md),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
