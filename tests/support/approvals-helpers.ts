// Helpers for the approvals tests and benchmark: policy grants, chat turns that pause for an approval,
// transcript polling, an SSE reader with Last-Event-ID, and raw one-connection-per-request HTTP.
import http from "node:http";
import type { Db } from "@/lib/db/client";
import type { HttpClient } from "./http-client";
import { readUiStream, type StreamChunk } from "./ui-stream";

export const say = (
  sessionId: string,
  text: string,
  extraParts: unknown[] = [],
  extra: Record<string, unknown> = {},
) => ({
  sessionId,
  message: { role: "user", parts: [{ type: "text", text }, ...extraParts], ...extra },
});

export const execLine = (command: string) => `/tool exec ${JSON.stringify({ command })}`;

/** Stores a new policy version (partial documents are read over the defaults). */
export async function setPolicy(db: Db, document: unknown, comment = "approvals test"): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const last = await db.policyVersion.findFirst({ orderBy: { version: "desc" } });
    try {
      await db.policyVersion.create({
        data: { version: (last?.version ?? 0) + 1, document: document as never, comment },
      });
      return;
    } catch (error) {
      if (attempt > 5) throw error; // another writer took the version number: try the next one
    }
  }
}

export const codingGrant = (memberId: string, exec: Record<string, unknown> = {}) => ({
  modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } },
  ...(Object.keys(exec).length ? { exec } : {}),
});

export async function newCodingSession(client: HttpClient): Promise<string> {
  const res = await client.json("/api/sessions", { method: "POST", body: {} });
  if (res.status !== 201) throw new Error(`session not created: ${res.status} ${JSON.stringify(res.body)}`);
  const patched = await client.json(`/api/sessions/${res.body.id}`, { method: "PATCH", body: { mode: "coding" } });
  if (patched.status !== 200) throw new Error(`mode not switched: ${patched.status} ${JSON.stringify(patched.body)}`);
  return res.body.id;
}

export async function chat(
  client: HttpClient,
  sessionId: string,
  text: string,
  extraParts: unknown[] = [],
  extra: Record<string, unknown> = {},
): Promise<StreamChunk[]> {
  for (let attempt = 0; ; attempt++) {
    const res = await client.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(say(sessionId, text, extraParts, extra)),
    });
    if (res.status === 409 && attempt < 50) {
      await res.text();
      await sleep(200); // the previous turn of this session is still finishing
      continue;
    }
    if (res.status !== 200) throw new Error(`chat failed: ${res.status} ${await res.text()}`);
    return readUiStream(res);
  }
}

export type Pending = { approvalId: string; callId: string; chunks: StreamChunk[] };

/** Sends a chat line that must pause for an approval and returns the pending approval's id. */
export async function askPending(client: HttpClient, sessionId: string, text: string): Promise<Pending> {
  const chunks = await chat(client, sessionId, text);
  const pending = chunks.find((c) => c.type === "data-approval_pending");
  if (!pending)
    throw new Error(
      `no data-approval_pending part in: ${JSON.stringify(chunks.map((c) => c.type))} ${JSON.stringify(chunks.filter((c) => c.type.startsWith("data-")))}`,
    );
  return { approvalId: pending.data.approvalId, callId: pending.data.callId, chunks };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 150,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await sleep(everyMs);
  }
}

export type TranscriptRow = {
  role: string;
  content: string;
  toolCallId: string | null;
  toolName: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- stored message parts: JSON of the shape the part type gives
  parts: any;
};

export async function transcript(client: HttpClient, sessionId: string): Promise<TranscriptRow[]> {
  const res = await client.json(`/api/sessions/${sessionId}`);
  if (res.status !== 200) throw new Error(`session read failed: ${res.status}`);
  return res.body.transcript;
}

/** Waits until the call's tool message has left `pending` and an assistant answer follows it. */
export async function settledTranscript(client: HttpClient, sessionId: string, callId: string, timeoutMs = 30_000) {
  return until(
    `call ${callId} to settle`,
    async () => {
      const rows = await transcript(client, sessionId);
      const i = rows.findIndex((r) => r.role === "tool" && r.toolCallId === callId);
      if (i < 0 || rows[i]!.parts?.status === "pending") return null;
      const answer = rows.slice(i + 1).find((r) => r.role === "assistant" && r.content);
      return answer ? { rows, tool: rows[i]!, answer } : null;
    },
    timeoutMs,
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- event data is JSON whose shape depends on the event name
export type SseEvent = { id: string | null; event: string; data: any };

/** Reads an SSE endpoint with the client's cookies; `events` fills as they arrive. */
export function openSse(client: HttpClient, path: string, lastEventId?: string | number) {
  const controller = new AbortController();
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  let opened!: () => void;
  const ready = new Promise<void>((r) => (opened = r));
  let failed: unknown = null;
  const done = (async () => {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["last-event-id"] = String(lastEventId);
    const res = await client.fetch(path, { headers, signal: controller.signal });
    if (res.status !== 200 || !res.body) throw new Error(`SSE ${path}: ${res.status}`);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (block.includes(": connected")) opened();
        let id: string | null = null;
        let event = "message";
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) id = line.slice(4);
          else if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) data.push(line.slice(6));
        }
        if (data.length) {
          events.push({ id, event, data: JSON.parse(data.join("\n")) });
          for (const w of waiters) w();
        }
      }
    }
  })().catch((error) => {
    if (!controller.signal.aborted) failed = error;
    opened();
  });
  async function waitFor(pred: (e: SseEvent) => boolean, timeoutMs = 15_000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = events.find(pred);
      if (hit) return hit;
      if (failed) throw failed;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `SSE ${path}: no matching event in ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => [e.id, e.event]))}`,
        );
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(left, 250));
        waiters.add(() => {
          clearTimeout(t);
          r();
        });
      });
      waiters.clear();
    }
  }
  return {
    events,
    ready: ready.then(() => {
      if (failed) throw failed;
    }),
    waitFor,
    /** Resolves when the server ends the stream (or it is closed here). */
    ended: done,
    close: async () => {
      controller.abort();
      await done;
    },
  };
}

/** One request on its own TCP connection (no keep-alive pool), for "separate connections" races. */
export function rawRequest(
  url: string,
  { method = "GET", headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        headers: { ...headers, connection: "close", ...(body ? { "content-length": Buffer.byteLength(body) } : {}) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}

/** The cookie header a signed-in HttpClient sends. */
export function cookieOf(client: HttpClient): string {
  return (client as unknown as { cookieHeader(): string }).cookieHeader();
}
