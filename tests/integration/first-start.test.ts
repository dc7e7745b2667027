// Issue 33: a first start a newcomer can read. `npm start`'s own script (scripts/start.mjs) on a fresh database:
// one line per phase with its time, no other program's chatter (Prisma's datasource warning, the migration tree),
// and the address and demo logins as the last lines before "Ready". A tool that fails shows its own output.
// It runs only where the dependencies, Prisma clients and build are current (as npm test leaves them): otherwise
// start.mjs would install or build in this checkout under the other tests' feet.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, TEST_AUTH_SECRET, freePort } from "../support/app-server";
// @ts-expect-error -- plain ESM script without types
import { dependenciesAreCurrent } from "../../scripts/lib/bootstrap.mjs";
import { buildHash, buildIsCurrent, clientHash, clientsAreCurrent } from "../../scripts/lib/source-hash.mjs";

const current =
  (dependenciesAreCurrent() as boolean) &&
  (buildIsCurrent(ROOT, buildHash(ROOT)) as boolean) &&
  (clientsAreCurrent(ROOT, clientHash(ROOT)) as boolean);
if (!current)
  console.warn(
    "[first-start] skipped: dependencies, Prisma clients or build are not current in this checkout (run npm test, which prepares them)",
  );

type Started = { lines: string[]; ready: boolean; code: number | null };

/** Runs start.mjs until it prints "Ready" (then stops it) or exits. */
async function start(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: ROOT,
    env: { ...process.env, TOOLGATE_VERBOSE: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output += c.toString()));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setInterval(() => {
      if (!/▶ Ready on/.test(output)) return;
      clearInterval(timer);
      process.kill(-child.pid!, "SIGTERM");
    }, 100);
    child.once("exit", (exit) => {
      clearInterval(timer);
      resolve(exit);
    });
  });
  const lines = output.split("\n").filter((l) => l.trim() !== "");
  const readyAt = lines.findIndex((l) => l.startsWith("▶ Ready on"));
  return { lines: readyAt >= 0 ? lines.slice(0, readyAt + 1) : lines, ready: readyAt >= 0, code };
}

describe.runIf(current)("first start (scripts/start.mjs)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-first-start-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = (databaseUrl: string) => ({
    DATABASE_URL: databaseUrl,
    AUTH_SECRET: TEST_AUTH_SECRET,
    WORKSPACE_ROOT: path.join(dir, "workspaces"),
    AUDIT_WITNESS: `file:${path.join(dir, "witness.jsonl")}`,
    SEED_DEMO_USERS: "auto",
  });

  it("prints a line per phase with its time, no other program's output, and the address and logins last before Ready", async () => {
    const port = String(await freePort());
    const { lines, ready } = await start({ ...env(`file:${path.join(dir, "fresh.db")}`), PORT: port });
    expect(ready, lines.join("\n")).toBe(true);
    expect(lines.length, lines.join("\n")).toBeLessThanOrEqual(25);
    expect(lines.at(-1)).toBe(`▶ Ready on http://localhost:${port} (lean event streams)`);
    expect(lines.at(-3)).toBe(`[toolgate] open http://localhost:${port} and sign in`);
    expect(lines.at(-2)).toMatch(
      /^\[toolgate\] demo accounts: admin@example\.com, owner@example\.com, member@example\.com — password: /,
    );
    for (const noise of [
      /WARNING/,
      /will NOT be used/,
      /Prisma schema loaded/,
      /migration\.sql/,
      /Loaded Prisma config/,
      /\bat .+:\d+:\d+\)?$/,
    ]) {
      expect(
        lines.filter((l) => noise.test(l)),
        String(noise),
      ).toEqual([]);
    }
    const finished = lines.filter((l) => l.startsWith("[toolgate] ✓ "));
    expect(finished.map((l) => l.replace(/ \(.*$/, "").replace(/^\[toolgate\] ✓ /, ""))).toEqual(
      expect.arrayContaining(["check configuration", "seed"]),
    );
    for (const line of finished) expect(line).toMatch(/\(\d+\.\d s, \d+\.\d s in all\)$/);
    expect(lines).toContainEqual(expect.stringMatching(/^\[toolgate\]\s+\d+ migrations applied$/));
  }, 180_000);

  it("a step that fails shows that tool's own output and stops", async () => {
    const port = String(await freePort());
    const { lines, ready, code } = await start({
      ...env(`file:${path.join(dir, "missing-dir", "sub", "x.db")}`),
      DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none",
      PORT: port,
    });
    expect(ready).toBe(false);
    expect(code).not.toBe(0);
    expect(lines.join("\n")).toMatch(/✗ migrate/);
    // Prisma's own words about the unreachable server, shown because the step failed.
    expect(lines.join("\n")).toMatch(/P1001|Can't reach database|ECONNREFUSED/);
  }, 180_000);
});
