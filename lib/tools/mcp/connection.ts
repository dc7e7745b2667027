import "server-only";
// One MCP server as the app sees it: connected on demand, every operation bounded by the server's timeout and the
// caller's abort signal. Whatever the server does (hang, exit, refuse, restart), the caller gets an AppError naming
// the server and what happened: a stdio exit carries the tail of the server's stderr, an HTTP server that dies
// mid-call is noticed when its stream breaks (not when the deadline passes), and an HTTP server that restarted and
// forgot our session is re-initialised once, transparently. Health, back-off and discovery scheduling live in
// sync.ts; this class only reports.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { cappedFetch } from "./capped-fetch";
import {
  collectPage,
  emptyCuts,
  MIN_MESSAGE_BYTES,
  nextCursorToFollow,
  type KeptTool,
  type ListingCuts,
} from "./limits";
import { ServerLogLimiter } from "./log-limiter";
import { currentRelay, inRelay, outsideRelay } from "./relay";
import { decryptEnv, decryptHeaders } from "./secrets";
import { stdioSpawnSpec } from "./stdio-spawn";
import { SandboxedStdioTransport } from "./stdio-transport";

/** What the gateway lists from a server besides tools. */
export type ListKind = "resources" | "resourceTemplates" | "prompts";
export type ListPage<K extends ListKind> = K extends "resources"
  ? ListResourcesResult
  : K extends "resourceTemplates"
    ? ListResourceTemplatesResult
    : ListPromptsResult;

export type McpTool = KeptTool;

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_MAX_MS = 30_000;
/** Enough for a stack trace's first lines or a "missing API key" message; shown to the admin, cut for the model. */
export const STDERR_TAIL_CHARS = 2000;
/** How long a suspected HTTP death is probed before the pending calls are failed. */
const LIVENESS_PROBE_MS = 2000;

export function backoffDelay(failures: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
}

class TimedOut extends Error {}
/** The transport reported the server gone while something was pending (HTTP stream broken and ping failed). */
class ConnectionLost extends Error {}

type Live = { client: Client; lost: Promise<never>; markLost: (reason: string) => void };

export type McpConnectionEvents = {
  /** The server said its tool list changed (notifications/tools/list_changed). */
  onToolsChanged?: () => void;
  /** The connection ended without us closing it (process exit, HTTP server gone). */
  onDisconnected?: (reason: string) => void;
};

export class McpConnection {
  private live: Live | undefined;
  private connecting: Promise<Live> | undefined;
  private stderr = "";
  private closed = false;
  private readonly logs: ServerLogLimiter;

  constructor(
    readonly config: McpServerConfig,
    private readonly events: McpConnectionEvents = {},
  ) {
    this.logs = new ServerLogLimiter(config.id);
  }

  get id(): string {
    return this.config.id;
  }

  get connected(): boolean {
    return this.live !== undefined;
  }

  /** The last lines the stdio server wrote to stderr (kept across its exit, reset when it is started again). */
  stderrTail(): string {
    return this.stderr;
  }

  async listTools(signal?: AbortSignal): Promise<McpTool[]> {
    return (await this.listToolsBounded(signal)).tools;
  }

  /** The server's tools within the caps of limits.ts, applied page by page, and what was left out. */
  async listToolsBounded(signal?: AbortSignal): Promise<{ tools: McpTool[]; cuts: ListingCuts }> {
    return this.run("listing tools", signal, async (client, options) => {
      const tools: McpTool[] = [];
      const cuts = emptyCuts();
      const seen = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, options);
        cuts.pages += 1;
        collectPage(page.tools, tools, cuts);
        cursor = nextCursorToFollow(page.nextCursor, seen, cuts);
      } while (cursor);
      if (cuts.stoppedPaging)
        this.logs.write("warn", "mcp_listing_cut", {
          reason: cuts.stoppedPaging,
          kept: tools.length,
          overLimit: cuts.overLimit,
        });
      return { tools, cuts };
    });
  }

  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    return this.run(
      `calling ${name}`,
      signal,
      (client, options) => client.callTool({ name, arguments: args }, undefined, options) as Promise<CallToolResult>,
      { relayed: true },
    );
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.run(`reading ${uri}`, signal, (client, options) => client.readResource({ uri }, options), {
      relayed: true,
    });
  }

  /**
   * One page of the server's resources, resource templates or prompts (what the gateway passes through); an empty
   * page when the server does not declare the capability, so asking never fails on a tools-only server.
   */
  async listPage<K extends ListKind>(kind: K, cursor: string | undefined, signal?: AbortSignal): Promise<ListPage<K>> {
    return this.run(`listing ${kind}`, signal, async (client, options) => {
      const capability = kind === "prompts" ? "prompts" : "resources";
      if (!client.getServerCapabilities()?.[capability]) return { [kind]: [] } as unknown as ListPage<K>;
      const params = cursor ? { cursor } : undefined;
      if (kind === "resources") return (await client.listResources(params, options)) as ListPage<K>;
      if (kind === "resourceTemplates") return (await client.listResourceTemplates(params, options)) as ListPage<K>;
      return (await client.listPrompts(params, options)) as ListPage<K>;
    });
  }

  async getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    signal?: AbortSignal,
  ): Promise<GetPromptResult> {
    return this.run(
      `getting prompt ${name}`,
      signal,
      (client, options) => client.getPrompt({ name, ...(args ? { arguments: args } : {}) }, options),
      { relayed: true },
    );
  }

  /** Argument completion for one of the server's prompts or resource templates; nothing when it offers none. */
  async complete(params: CompleteRequest["params"], signal?: AbortSignal): Promise<CompleteResult> {
    return this.run("completing an argument", signal, async (client, options) => {
      if (!client.getServerCapabilities()?.completions) return { completion: { values: [] } };
      return client.complete(params, options);
    });
  }

  async ping(signal?: AbortSignal): Promise<void> {
    await this.run("answering a ping", signal, (client, options) => client.ping(options));
  }

  /** Ends the connection for good (the server was removed or its settings changed). */
  async close(): Promise<void> {
    this.closed = true;
    const live = this.live;
    this.live = undefined;
    await live?.client.close().catch(() => undefined);
    this.logs.flush();
  }

  /** Drops the current connection (a reconnect from the admin view, or a failed health check). */
  async reset(): Promise<void> {
    const live = this.live;
    this.live = undefined;
    await live?.client.close().catch(() => undefined);
  }

  /**
   * One operation, bounded. `relayed`: a call, read or get whose upstream notifications may go to the caller that
   * opened a relay scope (relay.ts); every other operation runs in no scope, so its notifications go nowhere.
   */
  private async run<R>(
    what: string,
    signal: AbortSignal | undefined,
    fn: (client: Client, options: RequestOptions) => Promise<R>,
    { relayed = false, retried = false }: { relayed?: boolean; retried?: boolean } = {},
  ): Promise<R> {
    const { timeoutMs } = this.config;
    const timer = new AbortController();
    const handle = setTimeout(() => timer.abort(new TimedOut()), timeoutMs);
    const combined = signal ? AbortSignal.any([timer.signal, signal]) : timer.signal;
    const relay = relayed ? currentRelay() : undefined;
    const onprogress = relay?.progress;
    const options: RequestOptions = {
      signal: combined,
      timeout: timeoutMs,
      ...(onprogress ? { onprogress: (progress) => onprogress(this.id, progress) } : {}),
    };
    try {
      // The race guarantees the deadline even where the SDK would wait longer (a spawn that never initializes),
      // and ends the wait as soon as the connection is known to be lost.
      return await raceAbort(
        (async () => {
          const live = await this.getLive(combined);
          return Promise.race([inRelay(relay, () => fn(live.client, options)), live.lost]);
        })(),
        combined,
      );
    } catch (error) {
      if (!retried && isSessionGone(error) && !combined.aborted) {
        // The HTTP server restarted and no longer knows our session: the request never ran, so start a new
        // session and send it once more.
        log("info", "mcp_session_reinitialized", { server: this.id });
        await this.reset();
        clearTimeout(handle);
        return this.run(what, signal, fn, { relayed, retried: true });
      }
      throw this.explain(error, what, { timedOut: timer.signal.aborted, stopped: signal?.aborted === true });
    } finally {
      clearTimeout(handle);
    }
  }

  private explain(error: unknown, what: string, flags: { timedOut: boolean; stopped: boolean }): AppError {
    const prefix = `MCP server ${this.id}`;
    if (error instanceof AppError) return error;
    if (flags.stopped) return new AppError("TOOL_FAILED", `${prefix}: ${what} was stopped`);
    if (flags.timedOut || (error instanceof McpError && error.code === ErrorCode.RequestTimeout)) {
      return new AppError("TOOL_FAILED", `${prefix}: ${what} timed out after ${this.config.timeoutMs} ms`);
    }
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof ConnectionLost || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
      void this.reset();
      return new AppError("TOOL_FAILED", `${prefix}: server exited while ${what}${this.stderrSuffix()}`);
    }
    if (error instanceof StreamableHTTPError) {
      // The server answered, with an HTTP error: it is up, so this is not an exit.
      return new AppError(
        "TOOL_FAILED",
        `${prefix}: HTTP ${error.code} while ${what}: ${message.replace(/^Streamable HTTP error: /, "").slice(0, 300)}`,
      );
    }
    if (!(error instanceof McpError)) {
      // Network-level failures (HTTP server gone mid-request, refused connection): start over on the next use.
      void this.reset();
      const cause = (error as { cause?: { message?: string; code?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? message;
      return new AppError("TOOL_FAILED", `${prefix}: server exited or is unreachable while ${what} (${detail})`);
    }
    // A server's own error text: shown to the model and stored, so bounded like everything else it sends.
    return new AppError("TOOL_FAILED", `${prefix}: ${message.slice(0, 1000)}`);
  }

  private stderrSuffix(): string {
    const tail = this.stderr.trim();
    return tail ? ` (stderr: ${tail.slice(-300)})` : "";
  }

  private getLive(signal: AbortSignal): Promise<Live> {
    if (this.closed)
      return Promise.reject(new AppError("TOOL_FAILED", `MCP server ${this.id} is no longer configured`));
    if (this.live) return Promise.resolve(this.live);
    // Outside any call's relay scope: the connection (its process, its standing stream) serves every caller.
    this.connecting ??= outsideRelay(() => this.connect(signal))
      .catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        throw new AppError(
          "TOOL_FAILED",
          `MCP server ${this.id} could not be connected: ${message}${this.stderrSuffix()}`,
        );
      })
      .finally(() => {
        this.connecting = undefined;
      });
    return this.connecting;
  }

  private async connect(signal: AbortSignal): Promise<Live> {
    const client = new Client({ name: "toolgate", version: "1.0.0" });
    let markLost: (reason: string) => void = () => undefined;
    const lost = new Promise<never>((_resolve, reject) => {
      markLost = (reason) => reject(new ConnectionLost(reason));
    });
    lost.catch(() => undefined);
    const live: Live = { client, lost, markLost };
    const transport = this.createTransport();
    client.onclose = () => {
      // The server went away (stdio process exited) or we closed it: the next use reconnects.
      const wasCurrent = this.live === live;
      if (wasCurrent) this.live = undefined;
      live.markLost("connection closed");
      if (wasCurrent && !this.closed) {
        this.logs.write("warn", "mcp_connection_closed");
        this.events.onDisconnected?.(`connection closed${this.stderrSuffix()}`);
      }
    };
    client.onerror = (error) => {
      // Aborts are ours (timeouts, Stop, closing); the call that caused them already reports it.
      if (/AbortError|aborted/i.test(error.message)) return;
      // Rate-limited: a server can send unknown progress tokens or stray replies by the ten thousand.
      this.logs.write("warn", "mcp_transport_error", { error: error.message });
      // A broken HTTP stream is how a dead server shows; confirm with a short ping before failing what is pending.
      if (
        this.config.transport.type === "http" &&
        /SSE stream disconnected|reconnect|fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(error.message)
      ) {
        void this.probe(live, error.message);
      }
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.live === live) this.events.onToolsChanged?.();
    });
    // Read on the response stream of the request it belongs to (HTTP), or in no call's scope: see relay.ts.
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      currentRelay()?.log(this.id, notification.params);
    });
    try {
      await client.connect(transport, { timeout: this.config.timeoutMs, signal });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new AppError("TOOL_FAILED", `MCP server ${this.id} is no longer configured`);
    }
    this.live = live;
    return live;
  }

  private async probe(live: Live, reason: string): Promise<void> {
    try {
      await live.client.ping({ timeout: Math.min(LIVENESS_PROBE_MS, this.config.timeoutMs) });
    } catch {
      if (this.live !== live) return;
      this.live = undefined;
      live.markLost(reason);
      void live.client.close().catch(() => undefined);
      this.events.onDisconnected?.(`server unreachable (${reason})`);
    }
  }

  private createTransport(): Transport {
    const t = this.config.transport;
    const maxMessageBytes = maxMessageBytesOf(this.config);
    if (t.type === "stdio") {
      const env = { ...(t.envEncrypted ? decryptEnv(this.id, t.envEncrypted) : {}), ...t.env };
      const transport = new SandboxedStdioTransport(() => stdioSpawnSpec(this.config, env), maxMessageBytes);
      this.stderr = "";
      transport.stderr.on("data", (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
      });
      return transport;
    }
    const headers: Record<string, string> = {
      ...(t.headersEncrypted ? decryptHeaders(this.id, t.headersEncrypted) : {}),
    };
    if (t.headers) {
      log("warn", "mcp_plaintext_headers", {
        server: this.id,
        hint: "save the policy through the admin API so headers are encrypted",
      });
      Object.assign(headers, t.headers);
    }
    // Reconnecting a broken stream is pointless when the server died; probe() decides instead.
    return new StreamableHTTPClientTransport(new URL(t.url), {
      fetch: cappedFetch(maxMessageBytes),
      requestInit: { headers },
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
      },
    });
  }
}

/** The largest message a server may send: enough for its largest configured output cap, twice over (base64, JSON). */
function maxMessageBytesOf(config: McpServerConfig): number {
  const caps = [config.maxOutputBytes ?? 0, ...Object.values(config.tools).map((tool) => tool.maxOutputBytes ?? 0)];
  return Math.max(MIN_MESSAGE_BYTES, 2 * Math.max(...caps) + 1024 * 1024);
}

/** A server that restarted answers our old session id with 404 (spec) or 400 "No valid session ID" (common). */
function isSessionGone(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError)) return false;
  return error.code === 404 || (error.code === 400 && /session/i.test(error.message));
}

function raceAbort<R>(work: Promise<R>, signal: AbortSignal): Promise<R> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<R>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
