import "server-only";
// One MCP server as the app sees it: connected lazily on first use, reconnected after a failure with exponential
// back-off, and every operation bounded by the server's timeout and the caller's abort signal. Whatever the
// server does (hang, exit, refuse), the caller gets an AppError naming the server within the timeout, so a turn
// never waits on a plugin longer than the admin allowed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { decryptHeaders } from "./secrets";

export type McpTool = Tool;

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_MAX_MS = 30_000;
const STDERR_TAIL_CHARS = 400;

export function backoffDelay(failures: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
}

class TimedOut extends Error {}

export class McpConnection {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private failures = 0;
  private retryAt = 0;
  private lastError = "";
  private tools: McpTool[] | undefined;
  private stderrTail = "";
  private closed = false;

  constructor(readonly config: McpServerConfig) {}

  get id(): string {
    return this.config.id;
  }

  /** Tools from the last successful discovery, kept across reconnects (a crash does not change the catalog). */
  cachedTools(): McpTool[] | undefined {
    return this.tools;
  }

  async listTools(signal?: AbortSignal): Promise<McpTool[]> {
    if (this.tools) return this.tools;
    const tools = await this.run("listing tools", signal, async (client, options) => {
      const all: McpTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, options);
        all.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return all;
    });
    this.tools = tools;
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    return this.run(`calling ${name}`, signal, (client, options) => client.callTool({ name, arguments: args }, undefined, options) as Promise<CallToolResult>);
  }

  /** Ends the connection for good (the server was removed or its settings changed). */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async run<R>(what: string, signal: AbortSignal | undefined, fn: (client: Client, options: RequestOptions) => Promise<R>): Promise<R> {
    const { timeoutMs } = this.config;
    const timer = new AbortController();
    const handle = setTimeout(() => timer.abort(new TimedOut()), timeoutMs);
    const combined = signal ? AbortSignal.any([timer.signal, signal]) : timer.signal;
    try {
      // The race guarantees the deadline even where the SDK would wait longer (a spawn that never initializes).
      return await raceAbort(
        (async () => fn(await this.getClient(), { signal: combined, timeout: timeoutMs }))(),
        combined,
      );
    } catch (error) {
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
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      const tail = this.stderrTail.trim();
      return new AppError("TOOL_FAILED", `${prefix}: server exited while ${what}${tail ? ` (stderr: ${tail.slice(-200)})` : ""}`);
    }
    if (!(error instanceof McpError)) {
      // Network-level failures (HTTP server gone mid-request, refused connection): start over on the next use.
      this.dropClient();
      const cause = (error as { cause?: { message?: string; code?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? message;
      return new AppError("TOOL_FAILED", `${prefix}: server exited or is unreachable while ${what} (${detail})`);
    }
    return new AppError("TOOL_FAILED", `${prefix}: ${message}`);
  }

  private dropClient(): void {
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => undefined);
  }

  private getClient(): Promise<Client> {
    if (this.closed) return Promise.reject(new AppError("TOOL_FAILED", `MCP server ${this.id} is no longer configured`));
    if (this.client) return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
    const wait = this.retryAt - Date.now();
    if (wait > 0) {
      return Promise.reject(new AppError("TOOL_FAILED", `MCP server ${this.id} is unavailable (${this.lastError}); next attempt in ${wait} ms`));
    }
    this.connecting = this.connect()
      .then(
        (client) => {
          this.failures = 0;
          this.client = client;
          return client;
        },
        (error: unknown) => {
          this.failures += 1;
          this.retryAt = Date.now() + backoffDelay(this.failures);
          this.lastError = error instanceof Error ? error.message : String(error);
          log("warn", "mcp_connect_failed", { server: this.id, failures: this.failures, error: this.lastError });
          throw new AppError("TOOL_FAILED", `MCP server ${this.id} could not be connected: ${this.lastError}`);
        },
      )
      .finally(() => {
        this.connecting = undefined;
      });
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    const client = new Client({ name: "toolgate", version: "1.0.0" });
    const transport = this.createTransport();
    client.onclose = () => {
      // The server went away (stdio process exited): the next use reconnects. Not a connect failure, so no back-off.
      if (this.client === client) this.client = undefined;
      log("warn", "mcp_connection_closed", { server: this.id });
    };
    client.onerror = (error) => {
      // Aborts are ours (timeouts, Stop, closing); the call that caused them already reports it.
      if (!/AbortError|aborted/i.test(error.message)) log("warn", "mcp_transport_error", { server: this.id, error: error.message });
    };
    try {
      await client.connect(transport, { timeout: this.config.timeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new AppError("TOOL_FAILED", `MCP server ${this.id} is no longer configured`);
    }
    return client;
  }

  private createTransport(): Transport {
    const t = this.config.transport;
    if (t.type === "stdio") {
      const transport = new StdioClientTransport({ command: t.command, args: t.args, env: t.env, cwd: t.cwd, stderr: "pipe" });
      this.stderrTail = "";
      // Kept short: only to tell the model (and the admin in the log) why a server died.
      transport.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
      });
      return transport;
    }
    const headers: Record<string, string> = { ...(t.headersEncrypted ? decryptHeaders(this.id, t.headersEncrypted) : {}) };
    if (t.headers) {
      log("warn", "mcp_plaintext_headers", { server: this.id, hint: "save the policy through the admin API so headers are encrypted" });
      Object.assign(headers, t.headers);
    }
    return new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers } });
  }
}

function raceAbort<R>(work: Promise<R>, signal: AbortSignal): Promise<R> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<R>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
