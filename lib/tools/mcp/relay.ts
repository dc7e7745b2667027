import "server-only";
// Where an upstream server's notifications about one request go (issue 30: /mcp relays a call's progress and log
// messages to the outside client that made it). The gateway opens a scope around the call; the pipeline between
// the gateway and the upstream request (gate, approval, run, the tool's execute) is shared with the chat and knows
// nothing of it. connection.ts reads the scope only for a call, a resource read or a prompt get, and:
// - progress: asks the upstream for it (the SDK sends a progressToken of its own and routes the answers to this
//   request alone, whichever transport), and hands it to the scope's sink;
// - log messages: MCP gives them no request id. Over Streamable HTTP a server sends a request's messages on that
//   request's own response stream, and that stream is read inside the request's async context, so the scope seen
//   by the notification handler is the request's own. A connection is always opened outside any scope
//   (`outsideRelay`), so a standing stream (GET) and a stdio server's output belong to no call and are never relayed:
//   one client never gets another's messages.
import { AsyncLocalStorage } from "node:async_hooks";
import type { LoggingMessageNotification, Progress } from "@modelcontextprotocol/sdk/types.js";

export type UpstreamLog = LoggingMessageNotification["params"];

export type UpstreamRelay = {
  /** Set when the caller asked for progress (it sent a progressToken). */
  progress?: (serverId: string, progress: Progress) => void;
  log: (serverId: string, message: UpstreamLog) => void;
};

const scope = new AsyncLocalStorage<UpstreamRelay | undefined>();

/** Runs `work` with its upstream calls' notifications going to `relay`. */
export function withUpstreamRelay<T>(relay: UpstreamRelay, work: () => Promise<T>): Promise<T> {
  return scope.run(relay, work);
}

/** The relay of the call in whose async context this runs, if any. */
export function currentRelay(): UpstreamRelay | undefined {
  return scope.getStore();
}

/** Runs `work` as part of no call: connections, standing streams, spawned servers. */
export function outsideRelay<T>(work: () => T): T {
  return scope.exit(work);
}

/** Runs `work` as part of `relay`'s call only (undefined: of none), whatever scope the caller is in. */
export function inRelay<T>(relay: UpstreamRelay | undefined, work: () => T): T {
  return scope.run(relay, work);
}
