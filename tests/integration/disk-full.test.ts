// A database that runs out of space during a turn: every outcome that cannot be written fails with an error (never
// a hang, never half an outcome), and once space comes back the same process writes again at once, without a
// restart. SQLite is filled with PRAGMA max_page_count on the app's own connection (the limit a full disk puts on
// the file); the outcomes are the run store's, at every statement of a call: the claim, the result, the turn's end.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { useDatabase } from "../support/database-lifecycle";
import { useOutcomeFixture } from "../support/outcome-fixture";
import { newPostgresUrl, newSqliteUrl } from "../support/databases";

describe("disk full (sqlite)", () => {
  useDatabase(async () => ({ url: newSqliteUrl() }));
  const t = useOutcomeFixture();
  const { newRun, claim } = t;
  const pages = async () =>
    Number((await t.db.$queryRawUnsafe<Array<{ page_count: bigint }>>(`PRAGMA page_count`))[0]!.page_count);
  const limit = async (n: number) => t.db.$queryRawUnsafe(`PRAGMA max_page_count = ${n}`);
  const big = "x".repeat(64 * 1024);
  const result = (ids: { sessionId: string; runId: string }, callId: string) =>
    t.recorder.recordOutcome({
      ...ids,
      call: { callId, toolName: "current_time", from: ["running"], to: "done" },
      message: {
        append: { role: "tool", content: big, toolCallId: callId, toolName: "current_time", runId: ids.runId },
      },
    });

  it("each outcome that does not fit fails whole with an error, and writes work again within 5 s of space coming back", async () => {
    const ids = await newRun();
    expect(await claim(ids, "before")).toMatchObject({ ok: true });
    expect(await t.settle(ids, "before")).toMatchObject({ ok: true });
    await limit(await pages());
    // The results fill the last pages: one of them fails, whole.
    let failed: unknown = null;
    for (let i = 0; i < 200 && !failed; i++) {
      const callId = `fill-${i}`;
      const claimed = await claim(ids, callId).catch((error: unknown) => error);
      if (!(claimed as { ok?: boolean }).ok) {
        failed = claimed;
        break;
      }
      failed = await result(ids, callId).then(
        () => null,
        (error: unknown) => error,
      );
      if (failed) {
        expect(
          (await t.db.toolCall.findUniqueOrThrow({ where: { sessionId_callId: { sessionId: ids.sessionId, callId } } }))
            .status,
        ).toBe("running");
        expect(await t.db.message.count({ where: { sessionId: ids.sessionId, toolCallId: callId } })).toBe(0);
      }
    }
    expect(String(failed)).toMatch(/full/i);
    // What a request that met it answers: 503 JSON that says so, retryable, with no SQL or engine text.
    const { errorResponse } = await import("@/lib/http/respond");
    const response = errorResponse(failed);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: "STORAGE_FULL", message: expect.stringMatching(/out of space/) });
    expect(body.error.message).not.toMatch(/sqlite|prisma|insert|message/i);
    // Full: a turn's end that does not fit fails with an error, in time, and writes nothing (a small claim may still
    // fit in the pages left: then it is simply recorded).
    const other = await newRun();
    const started = Date.now();
    const end = { ...other, message: { append: { role: "assistant" as const, content: big, runId: other.runId } } };
    await expect(
      t.recorder.recordOutcome({ ...end, run: { from: ["running"], to: "completed", owner: t.instance } }),
    ).rejects.toThrow(/full/i);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await t.db.agentRun.findUniqueOrThrow({ where: { id: other.runId } })).status).toBe("running");
    expect(await t.db.message.count({ where: { sessionId: other.sessionId } })).toBe(0);
    // Space comes back: the same process writes at once.
    await limit(1_000_000);
    const back = Date.now();
    const fresh = await newRun();
    expect(await claim(fresh, "after")).toMatchObject({ ok: true });
    expect(await result(fresh, "after")).toMatchObject({ ok: true });
    expect(
      await t.recorder.recordOutcome({ ...fresh, run: { from: ["running"], to: "completed", owner: t.instance } }),
    ).toMatchObject({ ok: true });
    expect(Date.now() - back).toBeLessThan(5_000);
    const { verifyAuditChain } = await import("@/lib/db/audit");
    expect(await verifyAuditChain()).toMatchObject({ ok: true });
  });
});

// PostgreSQL on a private cluster this test starts itself (never the machine's shared server): initdb on a random
// port, the run's tables moved to a tablespace on a small tmpfs it mounts. Needs root (mount) and initdb.
const PG_BIN = fs.existsSync("/usr/lib/postgresql")
  ? fs
      .readdirSync("/usr/lib/postgresql")
      .map((v) => `/usr/lib/postgresql/${v}/bin`)
      .find((d) => fs.existsSync(`${d}/initdb`))
  : undefined;
const canMount = process.getuid?.() === 0;

describe.runIf(PG_BIN && canMount)("disk full (postgres, private cluster)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-diskfull-"));
  const small = path.join(dir, "small");
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const asPostgres = (bin: string, args: string[]) =>
    execFileSync("runuser", ["-u", "postgres", "--", `${PG_BIN}/${bin}`, ...args], { stdio: "pipe", timeout: 60_000 });
  let started = false;
  afterAll(() => {
    if (started) asPostgres("pg_ctl", ["-D", path.join(dir, "data"), "-m", "immediate", "stop"]);
    try {
      execFileSync("umount", [small]);
    } catch {
      // not mounted
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  useDatabase(async () => {
    fs.chmodSync(dir, 0o755);
    execFileSync("chown", ["postgres", dir]);
    asPostgres("initdb", ["-D", path.join(dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync"]);
    asPostgres("pg_ctl", [
      "-D",
      path.join(dir, "data"),
      "-l",
      path.join(dir, "log"),
      "-w",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "start",
    ]);
    started = true;
    fs.mkdirSync(small);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", small]);
    execFileSync("chown", ["postgres", small]);
    return newPostgresUrl(`postgresql://postgres@127.0.0.1:${port}/postgres`);
  });
  const t = useOutcomeFixture();
  const { newRun, claim } = t;
  // Random, so that PostgreSQL's compression of large values does not shrink it.
  const big = () => randomBytes(192 * 1024).toString("base64");
  const result = (ids: { sessionId: string; runId: string }, callId: string) =>
    t.recorder.recordOutcome({
      ...ids,
      call: { callId, toolName: "current_time", from: ["running"], to: "done" },
      message: {
        append: { role: "tool", content: big(), toolCallId: callId, toolName: "current_time", runId: ids.runId },
      },
    });

  it("each outcome that does not fit fails whole with a 503's error, and writes work again within 5 s of space coming back", async () => {
    await t.db.$executeRawUnsafe(`CREATE TABLESPACE small LOCATION '${small}'`);
    for (const table of ["Message", "ToolCall", "EventLog", "AuditLog", "AuditCheckpoint", "AgentRun", "ChatSession"])
      await t.db.$executeRawUnsafe(`ALTER TABLE "${table}" SET TABLESPACE small`);
    const ids = await newRun();
    expect(await claim(ids, "before")).toMatchObject({ ok: true });
    expect(await t.settle(ids, "before")).toMatchObject({ ok: true });
    // Fill the tmpfs but for a little room, then results until one does not fit.
    const filler = path.join(small, "filler");
    const free = () => {
      const s = fs.statfsSync(small);
      return s.bavail * s.bsize;
    };
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 1024 * 1024)));
    let failed: unknown = null;
    for (let i = 0; i < 100 && !failed; i++) {
      const callId = `fill-${i}`;
      const claimed = await claim(ids, callId).catch((error: unknown) => error);
      if (!(claimed as { ok?: boolean }).ok) {
        failed = claimed;
        break;
      }
      failed = await result(ids, callId).then(
        () => null,
        (error: unknown) => error,
      );
      if (failed) expect(await t.db.message.count({ where: { sessionId: ids.sessionId, toolCallId: callId } })).toBe(0);
    }
    const { isStorageFull } = await import("@/lib/db/client");
    expect(isStorageFull(failed), String(failed)).toBe(true);
    const { errorResponse } = await import("@/lib/http/respond");
    expect(errorResponse(failed).status).toBe(503);
    // Space comes back: the same process writes at once.
    fs.rmSync(filler);
    const back = Date.now();
    const fresh = await newRun();
    expect(await claim(fresh, "after")).toMatchObject({ ok: true });
    expect(await result(fresh, "after")).toMatchObject({ ok: true });
    expect(
      await t.recorder.recordOutcome({ ...fresh, run: { from: ["running"], to: "completed", owner: t.instance } }),
    ).toMatchObject({ ok: true });
    expect(Date.now() - back).toBeLessThan(5_000);
    const { verifyAuditChain } = await import("@/lib/db/audit");
    expect(await verifyAuditChain()).toMatchObject({ ok: true });
  });
});
