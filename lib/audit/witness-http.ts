import "server-only";
// A witness on another machine, for several instances (or several Toolgate installations) at once: entries are
// POSTed as JSON to the webhook, and `GET <url>?logId=<id>` answers the latest entry of that log (204 or 404 when
// there is none). The receiver stores entries where these instances' databases cannot reach. A bearer token
// (AUDIT_WITNESS_TOKEN) authenticates the instances to it; each entry is also signed with the audit key, so an
// entry the receiver (or anyone between) made up or changed is ignored.
import { readWitnessEntry, type AuditWitness, type WitnessEntry } from "./witness";

const TIMEOUT_MS = 10_000;

export class HttpWitness implements AuditWitness {
  readonly label: string;
  constructor(
    readonly url: string,
    private readonly token?: string,
  ) {
    this.label = `webhook ${new URL(url).origin}${new URL(url).pathname}`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...extra, ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) };
  }

  async append(entry: WitnessEntry): Promise<void> {
    const res = await fetch(this.url, {
      method: "POST",
      headers: this.headers({ "content-type": "application/json" }),
      body: JSON.stringify(entry),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`the audit witness ${this.label} answered ${res.status}`);
  }

  async latest(logId: string): Promise<WitnessEntry | null> {
    const url = new URL(this.url);
    url.searchParams.set("logId", logId);
    const res = await fetch(url, {
      headers: this.headers({ accept: "application/json" }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (res.status === 204 || res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) throw new Error(`the audit witness ${this.label} answered ${res.status}`);
    const text = await res.text();
    if (text.length > 64 * 1024) throw new Error(`the audit witness ${this.label} answered more than 64 KiB`);
    const entry = readWitnessEntry(JSON.parse(text));
    // A reply that is not a signed entry of this log is not a witness: fail loudly rather than verify against nothing.
    if (!entry || entry.logId !== logId)
      throw new Error(
        `the audit witness ${this.label} answered an entry that is not signed with this audit key for this log`,
      );
    return entry;
  }
}
