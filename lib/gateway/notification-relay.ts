import "server-only";
// An upstream server's progress and log messages about one /mcp request, relayed to the client that made it, on
// that POST's own response stream (stateless Streamable HTTP allows request-related notifications there). Only the
// request's own notifications arrive here (lib/tools/mcp/relay.ts says how they are told apart), and what passes is
// bounded, so a server cannot flood a client through the gateway:
// - progress: only when the client sent a progressToken; sent under the client's token, strictly increasing (the
//   gateway's own "waiting for an owner" ticks come first and the upstream's values follow after them),
//   PROGRESS_BURST at once then PROGRESS_PER_SECOND: past that only the latest is held back, and sent when the rate
//   allows or before the answer, so the last value always arrives;
// - log messages: filtered by the level the client set in this request (stateless: nothing is kept between
//   requests), LOG_BURST at once then LOG_PER_SECOND, at most LOG_MAX per request, each at most LOG_MAX_DATA_BYTES
//   of JSON; what was dropped is told once, at the end, as one warning of the gateway's own;
// - the upstream's text is treated as a tool result's is: kept as the server sent it (a client may need its paths
//   and names), with NUL and lone surrogates removed, too-deep data replaced and too-large data cut with a marker.
import type { LoggingLevel, Progress, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { MAX_JSON_DEPTH, valueDepthExceeds } from "@/lib/json-depth";
import { log } from "@/lib/log";
import { sanitizeDeep, sanitizeText } from "@/lib/text-sanitize";
import type { UpstreamLog, UpstreamRelay } from "@/lib/tools/mcp";

export const PROGRESS_BURST = 20;
export const PROGRESS_PER_SECOND = 10;
export const LOG_BURST = 20;
export const LOG_PER_SECOND = 10;
export const LOG_MAX = 200;
export const LOG_MAX_DATA_BYTES = 4096;
const MAX_TEXT_CHARS = 1000;

const LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

type Send = (notification: ServerNotification) => Promise<void>;

/** A token bucket: `burst` at once, then `perSecond`. */
class Bucket {
  private tokens: number;
  private at = Date.now();

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
  ) {
    this.tokens = burst;
  }

  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
  }

  /** Spends one if there is one (or anyway, with `force`: it then delays the next ones). */
  take(force = false): boolean {
    this.refill();
    if (this.tokens < 1 && !force) return false;
    this.tokens -= 1;
    return true;
  }

  msUntilNext(): number {
    this.refill();
    return Math.max(0, Math.ceil(((1 - this.tokens) / this.perSecond) * 1000));
  }
}

function boundedText(text: string, max = MAX_TEXT_CHARS): string {
  const clean = sanitizeText(text);
  return clean.length <= max ? clean : `${clean.slice(0, max)}[cut by Toolgate: ${clean.length} characters]`;
}

/** Log data as a tool result's content would pass: sanitised, depth-bounded, size-capped (then a marked string). */
export function boundedLogData(data: unknown): unknown {
  if (valueDepthExceeds(data, MAX_JSON_DEPTH))
    return `[log data nested deeper than ${MAX_JSON_DEPTH} levels, dropped by Toolgate]`;
  const clean = sanitizeDeep(data);
  const json = JSON.stringify(clean) ?? "null";
  const bytes = Buffer.byteLength(json, "utf8");
  if (bytes <= LOG_MAX_DATA_BYTES) return clean;
  const text = typeof clean === "string" ? clean : json;
  return `${Buffer.from(text, "utf8")
    .subarray(0, LOG_MAX_DATA_BYTES)
    .toString("utf8")
    .replace(/\uFFFD$/, "")}[log data cut by Toolgate: ${bytes} bytes, cap ${LOG_MAX_DATA_BYTES}]`;
}

export class NotificationRelay {
  private lastProgress = -Infinity;
  private offset: number | null = null;
  private ownTicks = 0;
  private readonly progressRate = new Bucket(PROGRESS_BURST, PROGRESS_PER_SECOND);
  private held: Progress | null = null;
  private heldTimer: NodeJS.Timeout | undefined;
  private readonly logRate = new Bucket(LOG_BURST, LOG_PER_SECOND);
  private logsSent = 0;
  private readonly dropped = new Map<string, number>();
  private closed = false;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly send: Send,
    private readonly progressToken: string | number | undefined,
    private readonly minLevel: () => LoggingLevel | undefined,
  ) {}

  /** What the upstream connection calls (lib/tools/mcp/relay.ts). */
  get upstream(): UpstreamRelay {
    return {
      ...(this.progressToken === undefined
        ? {}
        : { progress: (serverId: string, progress: Progress) => this.upstreamProgress(serverId, progress) }),
      log: (serverId, message) => this.upstreamLog(serverId, message),
    };
  }

  /** The gateway's own progress while a call waits for an owner (one tick each time). */
  ownProgress(message: string): void {
    if (this.progressToken === undefined || this.closed || this.offset !== null) return;
    this.ownTicks += 1;
    this.emitProgress({ progress: this.ownTicks, message });
  }

  private upstreamProgress(serverId: string, progress: Progress): void {
    if (this.closed || typeof progress.progress !== "number" || !Number.isFinite(progress.progress)) return;
    // The upstream counts from its own start; after the gateway's ticks its values follow them.
    this.offset ??= this.ownTicks;
    const value = this.offset + progress.progress;
    if (value <= this.lastProgress || (this.held && value <= this.held.progress))
      return this.drop(serverId, "progress");
    const total =
      typeof progress.total === "number" && Number.isFinite(progress.total) && progress.total >= progress.progress
        ? this.offset + progress.total
        : undefined;
    const next: Progress = {
      progress: value,
      ...(total !== undefined ? { total } : {}),
      ...(typeof progress.message === "string" ? { message: boundedText(progress.message) } : {}),
    };
    if (!this.held && this.progressRate.take()) return this.emitProgress(next);
    // Too fast: keep only the latest, sent when the rate allows (or before the answer).
    if (this.held) this.drop(serverId, "progress");
    this.held = next;
    this.heldTimer ??= setTimeout(() => this.releaseHeld(), this.progressRate.msUntilNext());
  }

  private releaseHeld(): void {
    clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
    const held = this.held;
    this.held = null;
    if (!held) return;
    this.progressRate.take(true);
    this.emitProgress(held);
  }

  private emitProgress(progress: Progress): void {
    this.lastProgress = progress.progress;
    this.enqueue({ method: "notifications/progress", params: { ...progress, progressToken: this.progressToken! } });
  }

  private upstreamLog(serverId: string, message: UpstreamLog): void {
    if (this.closed) return;
    const min = this.minLevel();
    if (!LEVELS.includes(message.level)) return this.drop(serverId, "log");
    if (min && LEVELS.indexOf(message.level) < LEVELS.indexOf(min)) return;
    if (this.logsSent >= LOG_MAX || !this.logRate.take()) return this.drop(serverId, "log");
    this.logsSent += 1;
    // Named after the server it came from, so a client with several behind the gateway can tell them apart.
    const logger = typeof message.logger === "string" ? `${serverId}/${boundedText(message.logger, 100)}` : serverId;
    this.enqueue({
      method: "notifications/message",
      params: { level: message.level, logger, data: boundedLogData(message.data) },
    });
  }

  private drop(serverId: string, kind: "progress" | "log"): void {
    const key = `${serverId}\u0000${kind}`;
    this.dropped.set(key, (this.dropped.get(key) ?? 0) + 1);
  }

  /** In the order received; a client that went away ends the sending, not the call. */
  private enqueue(notification: ServerNotification): void {
    this.sending = this.sending.then(() => this.send(notification)).catch(() => undefined);
  }

  /** Before the answer: the held progress, one warning for what was dropped, and nothing more after it. */
  async finish(): Promise<void> {
    if (this.closed) return this.sending;
    this.releaseHeld();
    this.closed = true;
    const logsDropped = [...this.dropped].filter(([key]) => key.endsWith("\u0000log"));
    const logCount = logsDropped.reduce((sum, [, n]) => sum + n, 0);
    if (logCount > 0) {
      const servers = [...new Set(logsDropped.map(([key]) => key.split("\u0000")[0]!))];
      this.enqueue({
        method: "notifications/message",
        params: {
          level: "warning",
          logger: "toolgate",
          data: `Toolgate dropped ${logCount} log messages of MCP server ${servers.join(", ")} (more than ${LOG_MAX} per request or ${LOG_PER_SECOND} a second)`,
        },
      });
    }
    if (this.dropped.size > 0)
      log("info", "mcp_gateway_relay_dropped", {
        dropped: Object.fromEntries([...this.dropped].map(([key, n]) => [key.replace("\u0000", ":"), n])),
      });
    return this.sending;
  }
}
