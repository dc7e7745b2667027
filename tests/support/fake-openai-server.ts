// A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions wire format, so the real-provider
// path (provider package, fetch, SSE parsing, tool-call assembly) is exercised end to end without a network.
// First turn: a tool call streamed in fragments; once the request carries tool results: text, then stop.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type RecordedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // The parsed JSON body, as the provider sent it.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON as the provider sent it; tests assert its shape with expect
  body: any;
};

export type FakeOpenAIScript = {
  toolCall: { name: string; arguments: string; id?: string };
  finalText: string;
  /** Size of the argument and text fragments; small values split them over many chunks. */
  fragmentSize?: number;
};

export type FakeOpenAIServer = {
  /** Base URL including /v1, as a provider's baseURL expects. */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

function fragments(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

function chunkEnvelope(model: string, delta: object, finishReason: string | null, extra: object = {}) {
  return {
    id: "chatcmpl-fake-1",
    object: "chat.completion.chunk",
    created: 1_763_800_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  };
}

async function writeSse(res: ServerResponse, events: object[]) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const event of events) {
    res.write(`data: ${JSON.stringify(event)}\n\n`);
    // Separate writes on separate ticks, so the client really sees the stream arrive in pieces.
    await new Promise((r) => setImmediate(r));
  }
  res.end("data: [DONE]\n\n");
}

function streamedTurn(script: FakeOpenAIScript, model: string, afterTools: boolean): object[] {
  const size = script.fragmentSize ?? 7;
  const usage = { usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } };
  if (afterTools) {
    return [
      chunkEnvelope(model, { role: "assistant", content: "" }, null),
      ...fragments(script.finalText, size).map((t) => chunkEnvelope(model, { content: t }, null)),
      chunkEnvelope(model, {}, "stop", usage),
    ];
  }
  const id = script.toolCall.id ?? "call_fake_1";
  return [
    chunkEnvelope(
      model,
      {
        role: "assistant",
        content: null,
        tool_calls: [{ index: 0, id, type: "function", function: { name: script.toolCall.name, arguments: "" } }],
      },
      null,
    ),
    ...fragments(script.toolCall.arguments, size).map((a) =>
      chunkEnvelope(model, { tool_calls: [{ index: 0, function: { arguments: a } }] }, null),
    ),
    chunkEnvelope(model, {}, "tool_calls", usage),
  ];
}

function completeTurn(script: FakeOpenAIScript, model: string, afterTools: boolean): object {
  const message = afterTools
    ? { role: "assistant", content: script.finalText }
    : {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: script.toolCall.id ?? "call_fake_1",
            type: "function",
            function: { name: script.toolCall.name, arguments: script.toolCall.arguments },
          },
        ],
      };
  return {
    id: "chatcmpl-fake-1",
    object: "chat.completion",
    created: 1_763_800_000,
    model,
    choices: [{ index: 0, message, finish_reason: afterTools ? "stop" : "tool_calls" }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
  };
}

export async function startFakeOpenAIServer(script: FakeOpenAIScript): Promise<FakeOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON of unknown shape, checked field by field below
      let body: any = null;
      try {
        body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
      } catch {
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "invalid JSON" } }));
        return;
      }
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "not found" } }));
        return;
      }
      const messages: Array<{ role: string }> = Array.isArray(body?.messages) ? body.messages : [];
      const afterTools = messages.at(-1)?.role === "tool";
      const model = String(body?.model ?? "fake-model");
      if (body?.stream) {
        void writeSse(res, streamedTurn(script, model, afterTools));
      } else {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(completeTurn(script, model, afterTools)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
