import "server-only";
// One configured MCP server over time: discovery in the background, a health check while it is up, and a circuit
// breaker while it is not. States: disabled (system settings do not allow contacting it), connecting, ready, down.
// Only `ready` lets a call through; otherwise a call fails at once with the state and the last error, so neither a
// turn nor a tool call waits on a server known to be unhealthy. While down, a background attempt is made after an
// exponential back-off (the half-open probe); success closes the circuit again.
import type { McpServerConfig, ToolDefinition, ToolRegistry } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { backoffDelay, McpConnection, type ListKind, type ListPage, type McpTool } from "./connection";
import { describeCuts, emptyCuts, MAX_TOOLS_PER_SERVER, type ListingCuts } from "./limits";
import { applyPins, type PendingToolChange } from "./pins";
import { buildMcpToolDefinitions, configuredToolStubs, requiresTasks, type DiscoveredTool } from "./tool-definitions";

export type McpServerState = "disabled" | "connecting" | "ready" | "down";

export type McpServerStatus = {
  id: string;
  transport: "stdio" | "http";
  state: McpServerState;
  /** Why the server is not ready (or the last problem it had). */
  lastError: string | null;
  stderrTail: string;
  failures: number;
  nextAttemptAt: string | null;
  lastReadyAt: string | null;
  tools: Array<{ name: string; serverName: string; requiresApproval: boolean }>;
  hiddenTools: Array<{ name: string; reason: string }>;
  /** Definitions the server changed since they were pinned: held (the pinned one is in use) until an admin accepts. */
  pendingChanges: PendingToolChange[];
};

export { MAX_TOOLS_PER_SERVER };

/** How often a ready server is pinged. Tests shorten it through the environment. */
const healthIntervalMs = () => Number(process.env.TOOLGATE_MCP_HEALTH_INTERVAL_MS) || 30_000;

export class McpServerSupervisor {
  private config: McpServerConfig;
  private readonly connection: McpConnection;
  private state: McpServerState = "disabled";
  private lastError: string | null = null;
  private failures = 0;
  private nextAttemptAt = 0;
  private lastReadyAt: number | null = null;
  private discovered: McpTool[] | undefined;
  private cuts: ListingCuts = emptyCuts();
  private pending: PendingToolChange[] = [];
  private names: string[] = [];
  private definitionsKey = "";
  private inFlight: Promise<void> | undefined;
  private relist = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private healthTimer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    config: McpServerConfig,
    readonly connectionKey: string,
    private readonly registry: ToolRegistry<ToolDefinition>,
  ) {
    this.config = config;
    this.connection = new McpConnection(config, {
      onToolsChanged: () => {
        log("info", "mcp_tools_changed", { server: this.config.id });
        // A change announced while a listing is under way may not be in it: list once more afterwards. However
        // many notifications arrive meanwhile, that is one more listing (a chatty server cannot make a storm).
        if (this.inFlight) this.relist = true;
        else void this.discover();
      },
      onDisconnected: (reason) => this.fail(reason),
    });
  }

  /** Takes the latest config (modes, overrides, caps) and whether the server may be contacted. Never waits. */
  update(config: McpServerConfig, inUse: boolean): void {
    this.config = config;
    if (!inUse) {
      if (this.state !== "disabled") {
        this.state = "disabled";
        this.clearTimers();
        void this.connection.reset();
      }
    } else if (
      this.state === "disabled" ||
      (this.state === "down" && Date.now() >= this.nextAttemptAt && !this.retryTimer)
    ) {
      void this.discover();
    }
    this.apply();
  }

  /** Resolves when the discovery under way (if any) has finished. */
  settled(): Promise<void> {
    return this.inFlight ?? Promise.resolve();
  }

  async reconnect(): Promise<void> {
    if (this.state === "disabled") return;
    this.failures = 0;
    this.nextAttemptAt = 0;
    await this.connection.reset();
    await this.discover();
  }

  /** Lists the tools again on the current connection (after an admin accepted a change). */
  async rediscover(): Promise<void> {
    if (this.state === "disabled") return;
    await this.settled();
    await this.discover();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.clearTimers();
    for (const name of this.names) this.registry.unregister(name);
    this.names = [];
    await this.connection.close();
  }

  status(): McpServerStatus {
    const hidden = (this.discovered ?? []).filter(requiresTasks).map((tool) => ({
      name: tool.name,
      reason: "needs MCP tasks (execution.taskSupport: required), which Toolgate does not run",
    }));
    return {
      id: this.config.id,
      transport: this.config.transport.type,
      state: this.state,
      lastError: this.lastError,
      stderrTail: this.connection.stderrTail(),
      failures: this.failures,
      nextAttemptAt:
        this.state === "down" && this.nextAttemptAt > 0 ? new Date(this.nextAttemptAt).toISOString() : null,
      lastReadyAt: this.lastReadyAt === null ? null : new Date(this.lastReadyAt).toISOString(),
      tools: this.names.map((name) => {
        const tool = this.registry.get(name) as (ToolDefinition & { serverToolName?: string }) | undefined;
        return { name, serverName: tool?.serverToolName ?? name, requiresApproval: tool?.requiresApproval === true };
      }),
      hiddenTools: [
        ...hidden,
        ...this.skipped.map((name) => ({
          name,
          reason: "its name collides with another tool of this server after sanitising",
        })),
        ...describeCuts(this.cuts),
      ],
      pendingChanges: this.pending,
    };
  }

  /** A resource read (a link a tool returned): through the same circuit as a call. */
  async readResource(uri: string, signal?: AbortSignal) {
    return this.guarded(() => this.connection.readResource(uri, signal));
  }

  /** A page of resources, resource templates or prompts (the gateway's pass-through): through the same circuit. */
  async listPage<K extends ListKind>(kind: K, cursor: string | undefined, signal?: AbortSignal): Promise<ListPage<K>> {
    return this.guarded(() => this.connection.listPage(kind, cursor, signal));
  }

  async getPrompt(name: string, args: Record<string, string> | undefined, signal?: AbortSignal) {
    return this.guarded(() => this.connection.getPrompt(name, args, signal));
  }

  async complete(params: Parameters<McpConnection["complete"]>[0], signal?: AbortSignal) {
    return this.guarded(() => this.connection.complete(params, signal));
  }

  /** A tool call: passes only while the circuit is closed (ready). */
  private call(name: string, args: Record<string, unknown>, signal?: AbortSignal) {
    return this.guarded(() => this.connection.callTool(name, args, signal));
  }

  private async guarded<R>(work: () => Promise<R>): Promise<R> {
    // Half-open: once the back-off has passed, the call itself may try the server again, or join the background
    // retry of a server that worked before (bounded by its timeout). A server never seen ready fails fast.
    const due = this.state === "down" && Date.now() >= this.nextAttemptAt;
    if (due || (this.state === "connecting" && this.lastReadyAt !== null)) await this.discover();
    if (this.state !== "ready") throw new AppError("TOOL_FAILED", this.unavailableReason());
    try {
      return await work();
    } catch (error) {
      // A server that exited or cannot be reached opens the circuit; a tool that timed out or failed does not.
      if (error instanceof Error && /server exited|unreachable|could not be connected/.test(error.message))
        this.fail(error.message);
      throw error;
    }
  }

  private unavailableReason(): string {
    const id = this.config.id;
    if (this.state === "disabled") return `MCP server ${id} is not enabled in the system settings`;
    if (this.state === "connecting")
      return `MCP server ${id} is still connecting; its tools are unavailable until it answers`;
    const wait = Math.max(0, this.nextAttemptAt - Date.now());
    return `MCP server ${id} is down (${this.lastError ?? "unknown error"}); next attempt in ${wait} ms`;
  }

  private discover(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.inFlight ??= (async () => {
      if (this.state !== "ready") this.state = "connecting";
      try {
        const listed = await this.connection.listToolsBounded();
        if (this.stopped()) return;
        // What the server says now is compared with what was pinned (pins.ts); a pin that cannot be read fails
        // the discovery, so a server's tools are never used unchecked.
        const { tools, pending } = await applyPins(this.config.id, listed.tools).catch((error: unknown) => {
          throw new Error(
            `MCP server ${this.config.id}: its pinned tool definitions could not be checked (${error instanceof Error ? error.message.slice(0, 200) : String(error)})`,
          );
        });
        if (this.stopped()) return;
        this.discovered = tools;
        this.cuts = listed.cuts;
        this.pending = pending;
        if (pending.length > 0)
          log("warn", "mcp_tool_changes_held", {
            server: this.config.id,
            tools: pending.map((change) => change.tool).slice(0, 20),
          });
        this.state = "ready";
        this.failures = 0;
        this.lastError = null;
        this.lastReadyAt = Date.now();
        this.scheduleHealth();
      } catch (error) {
        if (this.stopped()) return;
        this.fail(error instanceof Error ? error.message : String(error));
      }
    })().finally(() => {
      this.inFlight = undefined;
      if (this.disposed) return;
      this.apply();
      if (this.relist && this.state === "ready") {
        this.relist = false;
        void this.discover();
      }
    });
    return this.inFlight;
  }

  /** Disposed, or switched off while something was under way (its outcome no longer matters). */
  private stopped(): boolean {
    return this.disposed || this.state === "disabled";
  }

  /** Opens the circuit and schedules the next attempt. */
  private fail(reason: string): void {
    if (this.disposed || this.state === "disabled") return;
    this.failures += 1;
    this.state = "down";
    this.lastError = reason;
    const delay = backoffDelay(this.failures);
    this.nextAttemptAt = Date.now() + delay;
    log("warn", "mcp_server_down", {
      server: this.config.id,
      failures: this.failures,
      error: reason,
      retryInMs: delay,
    });
    this.clearTimers();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.discover();
    }, delay);
    this.retryTimer.unref();
  }

  private scheduleHealth(): void {
    if (this.healthTimer) clearTimeout(this.healthTimer);
    this.healthTimer = setTimeout(async () => {
      this.healthTimer = undefined;
      if (this.state !== "ready" || this.disposed) return;
      try {
        await this.connection.ping();
        this.scheduleHealth();
      } catch (error) {
        this.fail(error instanceof Error ? error.message : String(error));
      }
    }, healthIntervalMs());
    this.healthTimer.unref();
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.healthTimer) clearTimeout(this.healthTimer);
    this.retryTimer = undefined;
    this.healthTimer = undefined;
  }

  private skipped: string[] = [];

  /** Registers what is known: discovered tools (kept while the server is down, so the matrix does not flicker) plus configured stubs. */
  private apply(): void {
    if (this.disposed) return;
    const discovered: readonly DiscoveredTool[] = this.discovered ?? [];
    const known = new Set(discovered.map((tool) => tool.name));
    const tools = [...discovered, ...configuredToolStubs(this.config).filter((tool) => !known.has(tool.name))];
    const definitionsKey = JSON.stringify([this.config, tools]);
    if (definitionsKey === this.definitionsKey) return;
    for (const name of this.names) this.registry.unregister(name);
    const { definitions, skipped } = buildMcpToolDefinitions(this.config, tools, (name, args, options) =>
      this.call(name, args, options.abortSignal),
    );
    this.skipped = skipped;
    if (skipped.length > 0) log("warn", "mcp_tool_name_collision", { server: this.config.id, skipped });
    const names: string[] = [];
    for (const definition of definitions) {
      try {
        this.registry.register(definition);
        names.push(definition.name);
      } catch (error) {
        log("warn", "mcp_tool_not_registered", { server: this.config.id, tool: definition.name, error: String(error) });
      }
    }
    this.names = names;
    this.definitionsKey = definitionsKey;
  }
}
