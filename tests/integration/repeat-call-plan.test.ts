// An outside client's session holds every call it ever made (one session per client, lib/runs/call-pipeline.ts),
// and every gateway call first looks for the same call made before (findRepeatedCall). That lookup must be answered
// from an index, not by reading the session's calls: SQLite's own query plan for the statement Prisma sends says so.
// The statement is taken from the driver as it runs, so the test follows whatever SQL the query compiler writes.
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { useDatabase } from "../support/database-lifecycle";
import { newSqliteUrl } from "../support/databases";

type Statement = { source: string; all: (...args: unknown[]) => unknown[]; run: (...args: unknown[]) => unknown };

/** The SQL texts the driver runs while fn runs (every better-sqlite3 statement shares one prototype). */
async function statementsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const scratch = new Database(":memory:");
  const proto = Object.getPrototypeOf(scratch.prepare("SELECT 1")) as Statement;
  scratch.close();
  const seen: string[] = [];
  const { all, run } = proto;
  proto.all = function (this: Statement, ...args: unknown[]) {
    seen.push(this.source);
    return all.apply(this, args);
  };
  proto.run = function (this: Statement, ...args: unknown[]) {
    seen.push(this.source);
    return run.apply(this, args);
  };
  try {
    await fn();
  } finally {
    Object.assign(proto, { all, run });
  }
  return seen;
}

describe("the repeated-call lookup of the gateway (SQLite query plan)", () => {
  let file = "";
  useDatabase(async () => {
    const url = newSqliteUrl();
    file = url.slice("file:".length);
    return { url };
  });
  let lib: typeof import("@/lib/db/tool-calls");

  beforeAll(async () => {
    lib = await import("@/lib/db/tool-calls");
  });

  it.each([
    ["a call waiting or approved", {}],
    ["a denied one too, after its turn ended", { turnEnded: true, denied: true }],
  ])("finds %s through an index on the session, tool and arguments", async (_name, options) => {
    const statements = await statementsDuring(() =>
      lib.findRepeatedCall({ sessionId: "s1", toolName: "srv__add", argsHash: "h1", ...options }),
    );
    const lookup = statements.find((sql) => /FROM\s+`main`\.`ToolCall`/i.test(sql));
    expect(lookup, statements.join("\n")).toBeDefined();
    const db = new Database(file, { readonly: true });
    try {
      const params = (lookup!.match(/\?/g) ?? []).map(() => "x");
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${lookup!}`).all(...params) as Array<{ detail: string }>)
        .map((row) => row.detail)
        .join("\n");
      expect(plan).toMatch(/USING INDEX ToolCall_sessionId_toolName_argsHash_idx/);
    } finally {
      db.close();
    }
  });
});
