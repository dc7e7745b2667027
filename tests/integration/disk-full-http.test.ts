// Disk full seen from outside: the built app on a SQLite file in a small tmpfs the test fills. Every request answers
// in time with 2xx or a 503 JSON naming STORAGE_FULL (never a 500, never a hang, never an empty 200 stream), and
// once space comes back the same process takes writes again within 5 s, without a restart. (Every statement of a
// turn is covered in-process by disk-full.test.ts, on both databases.)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { prepareDatabase } from "../support/databases";
import { signedIn } from "../support/http-client";

const canMount = process.getuid?.() === 0;

describe.runIf(canMount)("disk full over HTTP (sqlite on a full tmpfs)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-diskfull-http-"));
  const small = path.join(dir, "small");
  const filler = path.join(small, "filler");
  let app: RunningApp | undefined;
  afterAll(async () => {
    await app?.stop();
    try {
      execFileSync("umount", [small]);
    } catch {
      // not mounted
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const free = () => {
    const s = fs.statfsSync(small);
    return s.bavail * s.bsize;
  };

  it("answers 503 STORAGE_FULL while full, and writes again within 5 s of space coming back", async () => {
    fs.mkdirSync(small);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=32m", "tmpfs", small]);
    const databaseUrl = `file:${path.join(small, "toolgate.db")}`;
    prepareDatabase(databaseUrl);
    app = await startApp({ databaseUrl });
    const member = await signedIn(app.url, "member@example.com");
    const sessionId = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    expect(sessionId).toBeTruthy();

    fs.writeFileSync(filler, Buffer.alloc(free()));
    const text = "x".repeat(19_000);
    const seen: number[] = [];
    let full: {
      status: number;
      body: { error?: { code?: string; message?: string } };
      retryAfter: string | null;
    } | null = null;
    // Turns until one does not fit: the WAL may still have room at first.
    for (let i = 0; i < 60 && !full; i++) {
      const res = await member.fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ sessionId, message: { role: "user", parts: [{ type: "text", text }] } }),
        signal: AbortSignal.timeout(30_000),
      });
      seen.push(res.status);
      const body = await res.text();
      if (res.status === 200) {
        // A stream that met a full disk says so in an error part, never ends empty.
        expect(body.length).toBeGreaterThan(0);
        if (/"type":"error"/.test(body)) full = { status: 200, body: {}, retryAfter: null };
        continue;
      }
      expect(res.status).toBe(503);
      full = { status: 503, body: JSON.parse(body) as never, retryAfter: res.headers.get("retry-after") };
    }
    expect(full, `statuses: ${seen.join(",")}`).not.toBeNull();
    // Whatever the turn did, a plain write now meets the full disk: 503 with a JSON body that names it.
    const refused = await member.json<{ error: { code: string; message: string } }>("/api/sessions", {
      method: "POST",
      body: {},
      signal: AbortSignal.timeout(30_000),
    });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe("STORAGE_FULL");
    expect(refused.body.error.message).not.toMatch(/sqlite|prisma|insert|\/tmp/i);
    expect(seen.every((s) => s === 200 || s === 503)).toBe(true);
    // Reads still work.
    expect((await member.json(`/api/sessions/${sessionId}`)).status).toBe(200);

    fs.rmSync(filler);
    const back = Date.now();
    let created = 0;
    while (Date.now() - back < 5_000) {
      const res = await member.json("/api/sessions", { method: "POST", body: {} });
      if (res.status === 201 || res.status === 200) {
        created = res.status;
        break;
      }
      expect(res.status).toBe(503);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(created).toBeGreaterThan(0);
    expect(Date.now() - back).toBeLessThan(5_000);
  });
});
