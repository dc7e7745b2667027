// A real HTTP server on 127.0.0.1 speaking Anthropic's Messages API (POST /v1/messages, stream: true), so the
// anthropic provider path (provider package, x-api-key auth, SSE event parsing, tool_use assembly, tool_result
// in the next request) is exercised end to end without a network. The events follow the documented streaming
// shapes: message_start, content_block_start / content_block_delta (text_delta, input_json_delta) /
// content_block_stop, message_delta carrying stop_reason and usage, message_stop; each as `event:` + `data:`.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RecordedRequest } from "./fake-openai-server";

export type { RecordedRequest };

/** One assistant turn: text, or a tool_use block (after optional text). */
export type FakeAnthropicTurn = {
  text?: string;
  toolUse?: { id: string; name: string; input: Record<string, unknown> };
};

export type FakeAnthropicOptions = {
  /** The only key accepted in x-api-key; any other (or none) gets Anthropic's 401 authentication_error. */
  apiKey: string;
  /** Decides each turn from the request the provider sent (see lastUserText / toolResults). */
  respond: (request: RecordedRequest) => FakeAnthropicTurn;
  /** Size of the text and JSON fragments; small values split them over many deltas. */
  fragmentSize?: number;
};

export type FakeAnthropicServer = {
  /** Base URL including /v1, as the provider's baseURL expects (it appends /messages). */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

type AnthropicContent = { type: string; text?: string; tool_use_id?: string; content?: unknown; is_error?: boolean };
type AnthropicMessage = { role: string; content: string | AnthropicContent[] };

function lastUser(body: RecordedRequest["body"]): AnthropicMessage | undefined {
  const messages: AnthropicMessage[] = Array.isArray(body?.messages) ? body.messages : [];
  return messages.filter((m) => m.role === "user").at(-1);
}

/** The text of the last user message (its text blocks joined). */
export function lastUserText(request: RecordedRequest): string {
  const message = lastUser(request.body);
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("");
}

/** The tool_result blocks of the last message, when it is the user turn answering a tool_use. */
export function toolResults(request: RecordedRequest): AnthropicContent[] {
  const messages: AnthropicMessage[] = Array.isArray(request.body?.messages) ? request.body.messages : [];
  const last = messages.at(-1);
  if (last?.role !== "user" || typeof last.content === "string") return [];
  return last.content.filter((c) => c.type === "tool_result");
}

function fragments(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function turnEvents(turn: FakeAnthropicTurn, model: string, size: number): Array<[string, object]> {
  const events: Array<[string, object]> = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: "msg_fake_1",
          type: "message",
          role: "assistant",
          content: [],
          model,
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 25, output_tokens: 1 },
        },
      },
    ],
    ["ping", { type: "ping" }],
  ];
  let index = 0;
  if (turn.text !== undefined) {
    events.push([
      "content_block_start",
      { type: "content_block_start", index, content_block: { type: "text", text: "" } },
    ]);
    for (const t of fragments(turn.text, size))
      events.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "text_delta", text: t } },
      ]);
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
    index++;
  }
  if (turn.toolUse) {
    const { id, name, input } = turn.toolUse;
    events.push([
      "content_block_start",
      { type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } },
    ]);
    // The documented stream opens the input with an empty partial_json, then the JSON in pieces.
    for (const p of ["", ...fragments(JSON.stringify(input), size)]) {
      events.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } },
      ]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  }
  events.push(
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: turn.toolUse ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: 15 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  );
  return events;
}

async function writeSse(res: ServerResponse, events: Array<[string, object]>) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const [name, data] of events) {
    res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    // Separate writes on separate ticks, so the client really sees the stream arrive in pieces.
    await new Promise((r) => setImmediate(r));
  }
  res.end();
}

function sendError(res: ServerResponse, status: number, type: string, message: string) {
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ type: "error", error: { type, message } }));
}

export async function startFakeAnthropicServer(options: FakeAnthropicOptions): Promise<FakeAnthropicServer> {
  const requests: RecordedRequest[] = [];
  const size = options.fragmentSize ?? 5;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON of unknown shape, checked field by field below
      let body: any = null;
      try {
        body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
      } catch {
        sendError(res, 400, "invalid_request_error", "invalid JSON");
        return;
      }
      const request: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      requests.push(request);
      if (req.method !== "POST" || req.url !== "/v1/messages")
        return sendError(res, 404, "not_found_error", "not found");
      if (req.headers["x-api-key"] !== options.apiKey)
        return sendError(res, 401, "authentication_error", "invalid x-api-key");
      if (!req.headers["anthropic-version"])
        return sendError(res, 400, "invalid_request_error", "anthropic-version header is required");
      if (!body?.stream) return sendError(res, 400, "invalid_request_error", "this fake server only streams");
      void writeSse(res, turnEvents(options.respond(request), String(body.model ?? "claude-fake"), size));
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
