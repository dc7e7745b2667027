import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import type { ToolDefinition } from "@/lib/policy/types";
import {
  BUILTIN_TOOLS,
  askUserTool,
  currentTimeTool,
  memoryGetTool,
  memorySearchTool,
  registerBuiltinTools,
  sessionsHistoryTool,
  sessionsListTool,
} from "@/lib/tools/builtin";
import { callOptions, makeContext, makeSandboxDirs } from "./support/tool-context";

async function failure(run: () => unknown): Promise<AppError> {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected the call to fail");
}

describe("BUILTIN_TOOLS guard", () => {
  it("lists exactly the built-ins, in order", () => {
    expect(BUILTIN_TOOLS.map((t) => t.name)).toEqual([
      "current_time",
      "memory_search",
      "memory_get",
      "read",
      "write",
      "edit",
      "apply_patch",
      "exec",
      "ask_user",
      "sessions_list",
      "sessions_history",
      "sessions_spawn",
      "subagents",
    ]);
  });

  it.each(BUILTIN_TOOLS.map((t) => [t.name, t] as const))("D4 %s declares its own group and modes", (_name, tool) => {
    expect(Object.hasOwn(tool, "group")).toBe(true);
    expect(typeof tool.group).toBe("string");
    expect(Object.hasOwn(tool, "allowedModes")).toBe(true);
    expect(tool.allowedModes!.length).toBeGreaterThan(0);
    expect(tool.description.length).toBeGreaterThan(10);
  });

  it("keeps file and process tools coding-only", () => {
    const codingOnly = ["exec", "read", "write", "edit", "apply_patch"];
    for (const name of codingOnly) {
      expect(BUILTIN_TOOLS.find((t) => t.name === name)?.allowedModes, name).toEqual(["coding"]);
    }
    for (const tool of BUILTIN_TOOLS.filter((t) => !codingOnly.includes(t.name))) {
      expect(tool.allowedModes, tool.name).toEqual(["chat_safe", "coding"]);
    }
  });

  it("describes every input field for the model", () => {
    for (const tool of BUILTIN_TOOLS) {
      const schema = z.toJSONSchema(tool.inputSchema) as { properties?: Record<string, { description?: string }> };
      for (const [field, prop] of Object.entries(schema.properties ?? {})) {
        expect(prop.description, `${tool.name}.${field}`).toBeTruthy();
      }
    }
  });

  it("registers every built-in", () => {
    const seen: ToolDefinition[] = [];
    registerBuiltinTools({ register: (t) => seen.push(t) });
    expect(seen).toEqual(BUILTIN_TOOLS);
  });
});

describe("simple built-ins", () => {
  async function ctx() {
    return makeContext((await makeSandboxDirs()).workspace);
  }

  it("current_time returns now, in the asked zone", async () => {
    const before = Date.now();
    const utc = await currentTimeTool.execute({}, callOptions(await ctx()));
    expect(utc.timezone).toBe("UTC");
    expect(utc.unixMs).toBeGreaterThanOrEqual(before);
    expect(utc.unixMs).toBeLessThanOrEqual(Date.now());
    expect(utc.iso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    const kolkata = await currentTimeTool.execute({ timezone: "Asia/Kolkata" }, callOptions(await ctx()));
    expect(kolkata.iso).toMatch(/\+05:30$/);
    expect(Date.parse(kolkata.iso)).toBe(Math.floor(kolkata.unixMs / 1000) * 1000);
    const err = await failure(async () =>
      currentTimeTool.execute({ timezone: "Mars/Olympus" }, callOptions(await ctx())),
    );
    expect(err.code).toBe("INVALID_ARGUMENTS");
  });

  it("memory_search and memory_get use the run's services", async () => {
    const c = await ctx();
    const found = await memorySearchTool.execute({ query: "deploy", limit: 1 }, callOptions(c));
    expect(found.results.map((r) => r.id)).toEqual(["m1"]);
    await expect(memoryGetTool.execute({ id: "m1" }, callOptions(c))).resolves.toMatchObject({ id: "m1" });
    const missing = await failure(() => memoryGetTool.execute({ id: "zzz" }, callOptions(c)));
    expect(missing.code).toBe("NOT_FOUND");
  });

  it("sessions_list and sessions_history only see what the service returns", async () => {
    const c = await ctx();
    const list = await sessionsListTool.execute({ limit: 1 }, callOptions(c));
    expect(list.sessions.map((s) => s.id)).toEqual(["s2"]);
    const history = await sessionsHistoryTool.execute({ sessionId: "s1", limit: 1 }, callOptions(c));
    expect(history.messages).toEqual([expect.objectContaining({ role: "assistant", content: "hi" })]);
    const other = await failure(() => sessionsHistoryTool.execute({ sessionId: "someone-elses" }, callOptions(c)));
    expect(other).toMatchObject({ code: "NOT_FOUND", message: "no such session" });
  });

  it("Y20 ask_user returns the question for the chat to show", async () => {
    const c = await ctx();
    expect(await askUserTool.execute({ question: "Which branch?", choices: ["main", "dev"] }, callOptions(c))).toEqual({
      asked: true,
      question: "Which branch?",
      choices: ["main", "dev"],
    });
  });

  it("tools that need a run context refuse to run without one", async () => {
    const err = await failure(() => memorySearchTool.execute({ query: "x" }, { callId: "c1" }));
    expect(err.code).toBe("INTERNAL");
  });
});
