// Fail-closed session mode (rows B5, B6, B7, S3, S4, O3, O4 of docs/requirements.md): whatever is stored, the effective mode is
// chat_safe unless it is a valid mode the user was granted; every downgrade logs the raw value and session id.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getSessionMode, resolveSessionMode } from "@/lib/runs/session-mode";
import { checkToolCall } from "@/lib/runs/gate";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { addLogSink, type LogRecord } from "@/lib/log";
import type { ToolRunContext } from "@/lib/tools/context";
import { policyFor } from "./support/policy";

let logs: LogRecord[] = [];
let remove: () => void = () => undefined;
beforeEach(() => {
  logs = [];
  remove = addLogSink((r) => logs.push(r));
});
afterEach(() => remove());

const modeWarnings = () => logs.filter((l) => l.level === "warn" && /mode/.test(l.event));
const reader = (value: string | null) => async () => value;

describe("getSessionMode", () => {
  it("B2 (unit) a stored chat_safe is read as chat_safe without a warning", async () => {
    expect(await getSessionMode({ sessionId: "s1", grantedModes: ["chat_safe"], read: reader("chat_safe") })).toEqual({
      mode: "chat_safe",
    });
    expect(modeWarnings()).toEqual([]);
  });

  it("B5/O3 a read error falls back to chat_safe with a warning naming the error and session, and never throws", async () => {
    const failing = async () => {
      throw new Error("connection pool exhausted");
    };
    const result = await getSessionMode({
      sessionId: "sess-db-error",
      grantedModes: ["chat_safe", "coding"],
      read: failing,
    });
    expect(result).toEqual({ mode: "chat_safe", downgraded: "read_error" });
    expect(modeWarnings()).toEqual([
      expect.objectContaining({
        event: "mode_read_error",
        sessionId: "sess-db-error",
        error: expect.stringContaining("connection pool exhausted"),
      }),
    ]);
  });

  it("B6/O3 an invalid stored value falls back to chat_safe with the raw value and session id", async () => {
    const result = await getSessionMode({
      sessionId: "sess-invalid",
      grantedModes: ["chat_safe", "coding"],
      read: reader("nonexistent_mode"),
    });
    expect(result).toEqual({ mode: "chat_safe", downgraded: "invalid" });
    expect(modeWarnings()).toEqual([
      expect.objectContaining({ event: "invalid_mode_value", raw: "nonexistent_mode", sessionId: "sess-invalid" }),
    ]);
  });

  it("B7/S3/O3 stored coding for a user NOT granted coding is chat_safe, warning with raw value and session id", async () => {
    const result = await getSessionMode({
      sessionId: "sess-hand-edited",
      grantedModes: ["chat_safe"],
      read: reader("coding"),
    });
    expect(result).toEqual({ mode: "chat_safe", downgraded: "not_permitted" });
    expect(modeWarnings()).toEqual([
      expect.objectContaining({
        event: "mode_downgraded",
        reason: "not_permitted",
        raw: "coding",
        sessionId: "sess-hand-edited",
      }),
    ]);
  });

  it("B7 (product rule) stored coding for a user granted coding is coding, without a warning", async () => {
    expect(
      await getSessionMode({ sessionId: "s-granted", grantedModes: ["chat_safe", "coding"], read: reader("coding") }),
    ).toEqual({ mode: "coding" });
    expect(modeWarnings()).toEqual([]);
  });

  it.each([null, ""])("S4 a missing stored mode (%j) is chat_safe with a warning", async (raw) => {
    const result = await getSessionMode({
      sessionId: "sess-null",
      grantedModes: ["chat_safe", "coding"],
      read: reader(raw),
    });
    expect(result).toEqual({ mode: "chat_safe", downgraded: "missing" });
    expect(modeWarnings()).toEqual([
      expect.objectContaining({ event: "mode_downgraded", reason: "missing", sessionId: "sess-null" }),
    ]);
  });

  it.each([undefined, 42, { mode: "coding" }, "CODING", " coding"])("resolveSessionMode fails closed for %j", (raw) => {
    expect(resolveSessionMode({ raw, grantedModes: ["chat_safe", "coding"], sessionId: "s" }).mode).toBe("chat_safe");
    expect(modeWarnings().length).toBe(1);
  });
});

describe("O4 a normal call logs no mode warning", () => {
  it("current_time in chat_safe resolves, passes the gate and runs without any warning", async () => {
    const { mode } = await getSessionMode({
      sessionId: "s-ok",
      grantedModes: ["chat_safe"],
      read: reader("chat_safe"),
    });
    const { policy, grantedModes } = policyFor(mode, { roles: ["member"] });
    const verdict = checkToolCall({
      policy,
      registry: getToolRegistry(),
      toolName: "current_time",
      input: {},
      grantedModes,
    });
    if (verdict.verdict !== "run") throw new Error(`expected run, got ${verdict.verdict}`);
    const output = await verdict.tool.execute(verdict.input, { callId: "c1", context: {} as ToolRunContext });
    expect(output).toMatchObject({ timezone: "UTC" });
    expect(logs.filter((l) => l.level !== "info")).toEqual([]);
  });
});

describe("D7 the stored mode column", () => {
  const root = path.resolve(__dirname, "../../..");
  it("is NOT NULL with DEFAULT 'chat_safe' in the schema and in every migration of both providers that writes it", () => {
    const schema = fs.readFileSync(path.join(root, "prisma/schema.base.prisma"), "utf8");
    const model = /model ChatSession \{([\s\S]*?)\n\}/.exec(schema)?.[1] ?? "";
    expect(model).toMatch(/^\s*mode\s+String\s+@default\("chat_safe"\)\s*$/m);
    let seen = 0;
    for (const provider of ["sqlite", "postgres"]) {
      const dir = path.join(root, "prisma", provider, "migrations");
      for (const migration of fs.readdirSync(dir).filter((d) => fs.existsSync(path.join(dir, d, "migration.sql")))) {
        const sql = fs.readFileSync(path.join(dir, migration, "migration.sql"), "utf8");
        for (const column of sql.match(/^\s*"mode" .*$/gm) ?? []) {
          seen += 1;
          expect(column.trim(), `${provider}/${migration}`).toBe(`"mode" TEXT NOT NULL DEFAULT 'chat_safe',`);
        }
      }
    }
    expect(seen).toBeGreaterThanOrEqual(2);
  });
});
