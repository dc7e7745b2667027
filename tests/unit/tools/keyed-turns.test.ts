// The per-workspace queues of the exec code keep a key only while work for it is queued (issue 29: a map keyed
// by workspace that kept every key grew with every workspace the instance ever served).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KeyedTurns } from "@/lib/tools/keyed-turns";
import { inWorkspaceTurn, workspaceTurns } from "@/lib/tools/workspace-changes";
import { addUsage, estimatedUsage, usageLocks } from "@/lib/tools/workspace-quota";

const settle = async (queue: KeyedTurns, deadlineMs = 10_000) => {
  for (const end = Date.now() + deadlineMs; queue.size > 0 && Date.now() < end;)
    await new Promise((r) => setTimeout(r, 5));
  return queue.size;
};

describe("KeyedTurns", () => {
  it("runs one piece of work at a time per key, in order, even when one fails", async () => {
    const turns = new KeyedTurns();
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const step =
      (name: string, fail = false) =>
      async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 2));
        log.push(name);
        running--;
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      turns.run("a", step("1")),
      turns.run("a", step("2", true)),
      turns.run("a", step("3")),
    ]);
    expect(log).toEqual(["1", "2", "3"]);
    expect(most).toBe(1);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await settle(turns)).toBe(0);
  });

  it("keeps a key only while work is queued: 1,000 keys leave nothing behind", async () => {
    const turns = new KeyedTurns();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const pending = Array.from({ length: 1000 }, (_, i) => turns.run(`w${i}`, () => gate));
    expect(turns.size).toBe(1000);
    release();
    await Promise.all(pending);
    expect(await settle(turns)).toBe(0);
  });

  it("a key whose first work ended while a second was queued stays until the second ends", async () => {
    const turns = new KeyedTurns();
    let releaseSecond!: () => void;
    const first = turns.run("k", async () => "first");
    const second = turns.run("k", () => new Promise<string>((r) => (releaseSecond = () => r("second"))));
    await first;
    await new Promise((r) => setTimeout(r, 20));
    expect(turns.size).toBe(1);
    // a third, queued now, still waits for the second
    let thirdRan = false;
    const third = turns.run("k", async () => void (thirdRan = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(thirdRan).toBe(false);
    releaseSecond();
    await Promise.all([second, third]);
    expect(thirdRan).toBe(true);
    expect(await settle(turns)).toBe(0);
  });
});

describe("the exec code's per-workspace queues", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-keyed-"));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it("inWorkspaceTurn keeps no workspace once its commands have ended", async () => {
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => inWorkspaceTurn(path.join(root, `turn-${i}`), async () => i)),
    );
    await expect(
      inWorkspaceTurn(path.join(root, "turn-x"), async () => Promise.reject(new Error("boom"))),
    ).rejects.toThrow("boom");
    expect(await settle(workspaceTurns)).toBe(0);
  });

  it("the quota's usage locks keep no workspace once its measurements have ended", async () => {
    const dirs = Array.from({ length: 50 }, (_, i) => path.join(root, `ws-${i}`));
    for (const dir of dirs) fs.mkdirSync(dir, { recursive: true });
    await Promise.all(dirs.map((dir) => estimatedUsage(dir, 1 << 30)));
    await Promise.all(dirs.map((dir) => addUsage(dir, 10)));
    expect(await settle(usageLocks)).toBe(0);
  });
});
