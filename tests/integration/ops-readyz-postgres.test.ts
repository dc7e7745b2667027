// Issue 34: /readyz follows the database. On a PostgreSQL cluster this test starts itself (never the machine's
// shared server): ready; the cluster stopped, not ready within the probe's deadline (naming the database, no
// driver text); the cluster back, ready again without restarting the app (pool and LISTEN reconnect). /healthz
// stays 200 throughout: the process is alive.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { newPostgresUrl, prepareDatabase } from "../support/databases";
import { until } from "../support/approvals-helpers";
import { postgresBinDir, startPrivatePostgres, type PrivatePostgres } from "../support/private-postgres";

const bin = postgresBinDir();
if (!bin)
  console.warn(
    "ops-readyz-postgres: skipped, no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)",
  );

describe.skipIf(!bin)("ops: /readyz when the database stops and returns (private PostgreSQL cluster)", () => {
  let pg: PrivatePostgres;
  let app: RunningApp;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    const { url } = await newPostgresUrl(pg.url);
    prepareDatabase(url);
    app = await startApp({ databaseUrl: url });
  });

  afterAll(async () => {
    await app?.stop();
    pg?.destroy();
  });

  const ready = async () => {
    const res = await fetch(`${app.url}/readyz`);
    return { status: res.status, body: await res.json() };
  };

  it("ready, then 503 naming the database while it is down, then ready again", async () => {
    const first = await until("ready", async () => ((await ready()).status === 200 ? true : null), 30_000, 250);
    expect(first).toBe(true);

    pg.stop();
    const down = await until(
      "not ready",
      async () => {
        const r = await ready();
        return r.status === 503 ? r : null;
      },
      30_000,
      250,
    );
    expect(down.body.status).toBe("not_ready");
    expect(down.body.checks.database.ok).toBe(false);
    expect(JSON.stringify(down.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|\/tmp|postgres/i);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);

    pg.start();
    const back = await until(
      "ready again",
      async () => {
        const r = await ready();
        return r.status === 200 ? r : null;
      },
      60_000,
      500,
    );
    expect(back.body.checks).toMatchObject({
      database: { ok: true },
      migrations: { ok: true },
      eventBus: { ok: true },
    });
  });
});
