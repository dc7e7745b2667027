// The real-provider path against a real local HTTP server speaking OpenAI's streaming wire format:
// provider package, fetch, SSE parsing, tool-call assembly from fragments and the two-step tool loop.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stepCountIs, streamText, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { createLanguageModel } from "@/lib/runs/model-provider";
import { takesImagesInToolResults, toolResultOutput } from "@/lib/runs/transcript";
import type { McpContentOutput } from "@/lib/tools/mcp/output";
import { AppError } from "@/lib/errors";
import type { ToolRunContext } from "@/lib/tools/context";
import { writeTool } from "@/lib/tools/builtin";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../support/fake-openai-server";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function server(toolArguments: string, finalText: string): Promise<FakeOpenAIServer> {
  const s = await startFakeOpenAIServer({
    toolCall: { name: "write", arguments: toolArguments, id: "call_w1" },
    finalText,
    fragmentSize: 5,
  });
  cleanups.push(() => s.close());
  return s;
}

async function context(): Promise<ToolRunContext> {
  const workspaceDir = await mkdtemp(path.join(os.tmpdir(), "toolgate-provider-"));
  cleanups.push(() => rm(workspaceDir, { recursive: true, force: true }));
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

describe("createLanguageModel with an OpenAI-compatible server", () => {
  it("streams a fragmented tool call, runs the real tool with its arguments and gets the final text", async () => {
    const args = JSON.stringify({ path: "notes/hello.txt", content: "written by a streamed tool call" });
    const fake = await server(args, "Done: I wrote notes/hello.txt for you.");
    const ctx = await context();
    const model = createLanguageModel({
      provider: "openai-compatible",
      baseUrl: fake.baseUrl,
      model: "fake-model",
      apiKey: "sk-test",
    });

    const result = streamText({
      model,
      prompt: "Please write a note",
      tools: {
        write: tool({
          description: writeTool.description,
          inputSchema: writeTool.inputSchema,
          execute: (input, { toolCallId, abortSignal }) =>
            writeTool.execute(input, { callId: toolCallId, abortSignal, context: ctx }),
        }),
      },
      stopWhen: stepCountIs(5),
    });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === "text-delta") deltas.push(part.text);

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Done: I wrote notes/hello.txt for you.");
    expect(await readFile(path.join(ctx.workspaceDir, "notes/hello.txt"), "utf8")).toBe(
      "written by a streamed tool call",
    );
    const steps = await result.steps;
    expect(steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(steps[0]!.toolCalls[0]).toMatchObject({ toolCallId: "call_w1", toolName: "write", input: JSON.parse(args) });

    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests;
    expect(first!.path).toBe("/v1/chat/completions");
    expect(first!.headers.authorization).toBe("Bearer sk-test");
    expect(first!.body).toMatchObject({ model: "fake-model", stream: true });
    const offered = first!.body.tools as Array<{ type: string; function: { name: string; parameters: unknown } }>;
    expect(offered.map((t) => t.function.name)).toEqual(["write"]);
    expect(offered[0]!.function.parameters).toMatchObject({
      type: "object",
      properties: { path: { type: "string", description: expect.any(String) }, content: { type: "string" } },
      required: ["path", "content"],
    });
    // The second request carries the tool's result back, bound to the streamed call id.
    const toolMessage = second!.body.messages.at(-1);
    expect(toolMessage).toMatchObject({ role: "tool", tool_call_id: "call_w1" });
    expect(JSON.parse(toolMessage.content)).toMatchObject({ path: "notes/hello.txt", created: true });
  });

  it("refuses an incomplete configuration with a clear error", () => {
    const attempt = (config: Parameters<typeof createLanguageModel>[0]) => {
      try {
        createLanguageModel(config);
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        return (err as AppError).message;
      }
      throw new Error("expected an error");
    };
    expect(attempt({ provider: "openai-compatible", model: "m" })).toContain("OPENAI_COMPATIBLE_BASE_URL");
    expect(attempt({ provider: "openai-compatible", baseUrl: "ftp://x", model: "m" })).toContain("http or https");
    expect(attempt({ provider: "openai-compatible", baseUrl: "http://127.0.0.1:1/v1" })).toContain("MODEL_NAME");
    expect(attempt({ provider: "openai", model: "gpt-x" })).toContain("OPENAI_API_KEY");
    expect(attempt({ provider: "anthropic", apiKey: "k" })).toContain("MODEL_NAME");
    expect(createLanguageModel({ provider: "offline" })).toMatchObject({ provider: "toolgate", modelId: "offline" });
    expect(createLanguageModel({ provider: "anthropic", apiKey: "k", model: "claude-x" }).modelId).toBe("claude-x");
    expect(createLanguageModel({ provider: "openai", apiKey: "k", model: "gpt-x" }).modelId).toBe("gpt-x");
  });
});

// Issue 14: a plugin's image reaches a provider as an image where its wire format has images in tool results, and
// never as base64 inside JSON text where it has not (chat completions: the SDK would stringify the parts).
describe("plugin images in tool results, per provider", () => {
  const pixel = Buffer.alloc(3000, 7).toString("base64");
  const output: McpContentOutput = {
    type: "mcp-content",
    server: "everything",
    tool: "get_tiny_image",
    parts: [
      { type: "text", text: "Here is an image:" },
      { type: "image", mimeType: "image/png", data: pixel },
    ],
  };

  async function toolMessageSent(imagesInToolResults: boolean) {
    const fake = await server("{}", "I see it.");
    const model = createLanguageModel({ provider: "openai-compatible", baseUrl: fake.baseUrl, model: "fake-model" });
    const result = streamText({
      model,
      messages: [
        { role: "user", content: "show me the image" },
        {
          role: "assistant",
          content: [
            { type: "tool-call", toolCallId: "call_i1", toolName: "mcp__everything__get_tiny_image", input: {} },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "call_i1",
              toolName: "mcp__everything__get_tiny_image",
              output: toolResultOutput(output, { imagesInToolResults }),
            },
          ],
        },
      ],
    });
    await result.consumeStream();
    return fake.requests[0]!.body.messages.at(-1) as { role: string; content: string };
  }

  it("an OpenAI-compatible server gets text naming the image, without its bytes", async () => {
    expect(takesImagesInToolResults("openai-compatible")).toBe(false);
    const sent = await toolMessageSent(takesImagesInToolResults("openai-compatible"));
    expect(sent.role).toBe("tool");
    expect(sent.content).toContain("Here is an image:");
    expect(sent.content).toMatch(/\[image image\/png, 3000 bytes/);
    expect(sent.content).not.toContain(pixel.slice(0, 64));
    // The same output as content parts would have carried the base64 inside JSON text: the check above can fail.
    expect((await toolMessageSent(true)).content).toContain(pixel.slice(0, 64));
  });

  it("OpenAI (Responses) and Anthropic get the image as an image part", () => {
    for (const provider of ["openai", "anthropic"]) {
      expect(takesImagesInToolResults(provider)).toBe(true);
      expect(toolResultOutput(output, { imagesInToolResults: takesImagesInToolResults(provider) })).toEqual({
        type: "content",
        value: [
          { type: "text", text: "Here is an image:" },
          { type: "image-data", mediaType: "image/png", data: pixel },
        ],
      });
    }
  });
});
