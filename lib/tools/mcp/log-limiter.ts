// Log lines a server can cause (progress for unknown tokens, replies to requests never made, transport noise) are
// rate-limited per server: the first few of an interval are written, the rest counted and summarised in one line
// when the interval ends. 50,000 notifications once wrote 50,000 warnings and slowed everyone's turns 3-4x.
import { log, type LogLevel } from "@/lib/log";

/** Lines per server per interval before counting starts. */
export const LOG_LINES_PER_INTERVAL = 5;
const intervalMs = () => Number(process.env.TOOLGATE_MCP_LOG_INTERVAL_MS) || 10_000;
const MAX_KINDS = 20;
const MAX_FIELD_CHARS = 300;

export class ServerLogLimiter {
  private written = 0;
  private suppressed = new Map<string, number>();
  private windowTimer: NodeJS.Timeout | undefined;

  constructor(private readonly serverId: string) {}

  write(level: LogLevel, event: string, data: Record<string, unknown> = {}): void {
    this.openWindow();
    if (this.written < LOG_LINES_PER_INTERVAL) {
      this.written += 1;
      // A server's own text (an error message it chose) is cut: one line must not carry megabytes.
      const fields = Object.fromEntries(
        Object.entries(data).map(([k, v]) => [k, typeof v === "string" ? v.slice(0, MAX_FIELD_CHARS) : v]),
      );
      log(level, event, { server: this.serverId, ...fields });
      return;
    }
    const kind = this.suppressed.has(event) || this.suppressed.size < MAX_KINDS ? event : "other";
    this.suppressed.set(kind, (this.suppressed.get(kind) ?? 0) + 1);
  }

  /** Writes the pending summary now (the connection is closing). */
  flush(): void {
    if (this.windowTimer) clearTimeout(this.windowTimer);
    this.windowTimer = undefined;
    this.summarise();
  }

  private openWindow(): void {
    if (this.windowTimer) return;
    const ms = intervalMs();
    this.windowTimer = setTimeout(() => {
      this.windowTimer = undefined;
      this.summarise();
    }, ms);
    this.windowTimer.unref();
  }

  private summarise(): void {
    if (this.suppressed.size > 0) {
      const total = [...this.suppressed.values()].reduce((a, b) => a + b, 0);
      log("warn", "mcp_log_suppressed", {
        server: this.serverId,
        suppressed: total,
        byEvent: Object.fromEntries(this.suppressed),
        intervalMs: intervalMs(),
      });
    }
    this.written = 0;
    this.suppressed = new Map();
  }
}
