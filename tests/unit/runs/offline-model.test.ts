import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { generateText, stepCountIs, streamText, tool, type ToolSet } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createOfflineModel } from "@/lib/runs/offline-model";
import type { ToolDefinition } from "@/lib/policy/types";
import type { ToolRunContext } from "@/lib/tools/context";
import { askUserTool, currentTimeTool, readTool } from "@/lib/tools/builtin";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function runContext(): Promise<ToolRunContext> {
  const workspaceDir = await mkdtemp(path.join(os.tmpdir(), "toolgate-offline-"));
  dirs.push(workspaceDir);
  const none = async () => null;
  return {
    userId: "u1",
    sessionId: "s1",
    workspaceDir,
    limits: { maxReadBytes: 10_000, maxWriteBytes: 10_000 },
    exec: { timeoutMs: 5_000, maxOutputBytes: 10_000 },
    services: { searchMemory: async () => [], getMemory: none, listSessions: async () => [], getSessionHistory: none },
  };
}

/** Hands our ToolDefinitions to the AI SDK the plain way (the agent loop adds the gates on top). */
function toAiTools(defs: ToolDefinition[], context: ToolRunContext): ToolSet {
  return Object.fromEntries(
    defs.map((d) => [
      d.name,
      tool({
        description: d.description,
        inputSchema: d.inputSchema,
        execute: (input: unknown, { toolCallId, abortSignal }) =>
          d.execute(input, { callId: toolCallId, abortSignal, context }),
      }),
    ]),
  );
}

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const reader = stream.getReader();
  const parts: T[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  return parts;
}

const denial = {
  ok: false,
  error_code: "MODE_DENIED",
  tool_name: "exec",
  mode: "chat_safe",
  message: "exec is not available in chat_safe mode",
  next_action: "Ask an admin to switch this session to coding mode.",
};

describe("offline model", () => {
  it("calls current_time for 'what time is it?' and then summarises the result", async () => {
    const context = await runContext();
    const result = streamText({
      model: createOfflineModel(),
      tools: toAiTools([currentTimeTool], context),
      prompt: "What time is it?",
      stopWhen: stepCountIs(5),
    });
    const text = await result.text;
    const steps = await result.steps;
    expect(steps).toHaveLength(2);
    expect(steps[0]!.toolCalls.map((c) => c.toolName)).toEqual(["current_time"]);
    expect(steps[0]!.toolResults[0]!.output).toMatchObject({ timezone: "UTC" });
    expect(steps[1]!.finishReason).toBe("stop");
    expect(text).toContain('The tool "current_time" returned');
    expect(text).toContain(String(new Date().getUTCFullYear()));
  });

  it("reads a workspace file with the real read tool for 'read <path>'", async () => {
    const context = await runContext();
    await writeFile(path.join(context.workspaceDir, "notes.txt"), "buy milk\n");
    const result = await generateText({
      model: createOfflineModel(),
      tools: toAiTools([readTool], context),
      prompt: "read notes.txt",
      stopWhen: stepCountIs(5),
    });
    expect(result.steps[0]!.toolCalls[0]).toMatchObject({ toolName: "read", input: { path: "notes.txt" } });
    expect(result.text).toContain("buy milk");
  });

  it("turns every /tool line into one call of a single step, with deterministic unique ids", async () => {
    const context = await runContext();
    const prompt =
      '/tool current_time {"timezone":"Asia/Tokyo"}\n/tool ask_user {"question":"Ready?","choices":["yes","no"]}';
    const run = () =>
      generateText({
        model: createOfflineModel(),
        tools: toAiTools([currentTimeTool, askUserTool], context),
        prompt,
        stopWhen: stepCountIs(5),
      });
    const first = await run();
    const calls = first.steps[0]!.toolCalls;
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([
      ["current_time", { timezone: "Asia/Tokyo" }],
      ["ask_user", { question: "Ready?", choices: ["yes", "no"] }],
    ]);
    expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(2);
    expect((await run()).steps[0]!.toolCalls.map((c) => c.toolCallId)).toEqual(calls.map((c) => c.toolCallId));
    expect(first.steps).toHaveLength(2);
    expect(first.text).toContain('- The tool "current_time" returned');
    expect(first.text).toContain('- The tool "ask_user" returned');
  });

  it("emits /tool calls for tools that were not offered, and passes invalid JSON through raw", async () => {
    const model = createOfflineModel();
    const { stream } = await model.doStream({
      prompt: [
        { role: "user", content: [{ type: "text", text: '/tool exec {"command":"ls"}\n/tool current_time {oops' }] },
      ],
      tools: [],
    });
    const parts: LanguageModelV3StreamPart[] = await readAll(stream);
    expect(
      parts.filter((p) => p.type === "tool-call").map((p) => p.type === "tool-call" && [p.toolName, p.input]),
    ).toEqual([
      ["exec", '{"command":"ls"}'],
      ["current_time", "{oops"],
    ]);
    expect(parts[0]).toEqual({ type: "stream-start", warnings: [] });
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "tool-calls" } });
  });

  it("explains a denial by its meaning without repeating the card, and does not call again", async () => {
    const context = await runContext();
    // Stands in for the execution gate's answer: same shape the agent loop returns for a denied call.
    const gatedExec = tool({
      description: "denied by the gate",
      inputSchema: z.object({ command: z.string() }),
      execute: async () => denial,
    });
    const result = await generateText({
      model: createOfflineModel(),
      tools: { ...toAiTools([currentTimeTool], context), exec: gatedExec },
      prompt: '/tool exec {"command":"rm -rf /"}',
      stopWhen: stepCountIs(5),
    });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[1]!.toolCalls).toEqual([]);
    expect(result.text).toContain('"exec" was not allowed in chat_safe mode');
    expect(result.text).toContain("is not available in this chat's mode");
    // The denial card shows the message and the next step; the answer points at it instead of repeating them.
    expect(result.text).not.toContain(denial.message);
    expect(result.text).not.toContain(denial.next_action);
    expect(result.text).not.toContain("MODE_DENIED");
  });

  it("says a recognised request's tool is unavailable when it was not offered", async () => {
    const context = await runContext();
    const result = await generateText({
      model: createOfflineModel(),
      tools: toAiTools([currentTimeTool], context),
      prompt: "run ls -la",
      stopWhen: stepCountIs(5),
    });
    expect(result.steps).toHaveLength(1);
    expect(result.toolCalls).toEqual([]);
    expect(result.text).toContain("exec tool is not available in this session's mode");
  });

  it("answers plain messages deterministically, streamed in several chunks", async () => {
    const run = async () => {
      const result = streamText({ model: createOfflineModel(), prompt: "hello there, how are you?" });
      const deltas: string[] = [];
      for await (const part of result.fullStream) if (part.type === "text-delta") deltas.push(part.text);
      return deltas;
    };
    const deltas = await run();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toContain('You said: "hello there, how are you?"');
    expect(await run()).toEqual(deltas);
  });

  it("stops streaming when aborted", async () => {
    const controller = new AbortController();
    const full = await generateText({ model: createOfflineModel(), prompt: "tell me a long story please" });
    const result = streamText({
      model: createOfflineModel({ chunkDelayMs: 200 }),
      prompt: "tell me a long story please",
      abortSignal: controller.signal,
    });
    const started = Date.now();
    let received = "";
    const types: string[] = [];
    for await (const part of result.fullStream) {
      types.push(part.type);
      if (part.type === "text-delta") {
        received += part.text;
        controller.abort();
      }
    }
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(full.text.length);
    expect(types).toContain("abort");
    expect(Date.now() - started).toBeLessThan(4_000); // not the 5 s chunk delay
  });

  it("errors its own stream with an AbortError as soon as the signal fires", async () => {
    const controller = new AbortController();
    const { stream } = await createOfflineModel({ chunkDelayMs: 5_000 }).doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "a message long enough to stream in chunks" }] }],
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    expect((await reader.read()).value).toEqual({ type: "stream-start", warnings: [] });
    const pending = reader.read();
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(Date.now() - started).toBeLessThan(4_000); // not the 5 s chunk delay
  });
});
