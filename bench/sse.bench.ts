// SSE at scale on one instance (SQLite): server memory per open inbox stream and the time for one event to reach
// every subscriber, at 1,000 and 10,000 connections, with the streams served by the lean node:http handler and,
// for comparison, by Next.js's route (TOOLGATE_LEAN_STREAMS=off on the same build). Each count runs on a freshly
// started app so the heap has no room left over from earlier runs. Needs `npx next build` first.
import { startApp } from "../tests/support/app-server";
import { newSqliteUrl, prepareDatabase } from "../tests/support/databases";
import { manySubscribers } from "./approvals.bench";

const COUNTS = (process.env.SSE_BENCH_COUNTS ?? "1000,10000").split(",").map(Number);
const MODES = (process.env.SSE_BENCH_MODES ?? "next,lean").split(",") as Array<"next" | "lean">;
const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;

export async function runSseBench(): Promise<string> {
  const rows: string[] = [];
  for (const mode of MODES) {
    for (const count of COUNTS) {
      const url = newSqliteUrl();
      prepareDatabase(url);
      const app = await startApp({ databaseUrl: url, env: { TOOLGATE_LEAN_STREAMS: mode === "lean" ? "on" : "off" } });
      try {
        const sub = await manySubscribers(app, count, 200);
        const line = `| ${mode === "lean" ? "lean `node:http` handler" : "Next.js route handler"} | ${sub.count} | ${sub.connectSeconds.toFixed(1)} s | ${mib(sub.before)} | ${mib(sub.after)} | ${(sub.perConnection / 1024).toFixed(1)} KiB | ${sub.fanOutMs.toFixed(1)} ms | ${sub.serverFanOutMs === null ? "not logged" : `${sub.serverFanOutMs.toFixed(1)} ms`} | ${mib(sub.closed)} |`;
        console.error(line);
        rows.push(line);
      } finally {
        await app.stop();
      }
    }
  }
  return [
    "## SSE streams at scale",
    "",
    "Inbox streams (`/api/approvals/stream`) of one owner on one freshly started instance (SQLite), opened 200 at a time on separate sockets from the benchmark process; memory is the RSS of the server's process group (median of five readings); *one event reaches all* runs from sending the `POST /api/approvals` that publishes `approval.requested` until every connection has parsed it (the client parses all N streams on the same 2 cores as the server); *server fan-out* is the server's own `event_fanout` log line (lib/events/sse.ts): from the event's first delivery to its last write handed to a socket.",
    "",
    "| served by | subscribers | time to open all | RSS before | RSS with all open | per connection | one event reaches all | server fan-out | RSS after closing |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
    "",
  ].join("\n");
}

if (require.main === module) {
  runSseBench().then(
    (md) => console.log(md),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
