import "server-only";
// Fan-out of live events to the open streams of this process, grouped by the check they must keep passing. Every
// stream of one claim (the same user, session version and role requirement) shares one group: an event costs one
// check per group, not one per stream, and then a plain loop of socket writes. A group's tasks run one after another,
// so each stream still gets its events in order, and a stream's backlog is queued on its group before any live event.
// Hand-written because this is the product's own access rule (re-checked per event) on top of the event log.
import { log } from "@/lib/log";
import { subscribeEvents, type AppEvent } from "./bus";
import { observeFanOut, provideMetricSource } from "@/lib/ops/metrics";
import { processSlots } from "@/lib/process-singleton";

const HEARTBEAT_MS = 15_000;
const RECHECK_MS = 5_000;
/** A check that has not answered by then counts as failed (fail closed): a hung check would hold the whole group open and silent. */
const CHECK_TIMEOUT_MS = 5_000;
/** Fan-outs to at least this many streams, or slower than FANOUT_SLOW_MS, are logged (`event_fanout`). */
const FANOUT_LOG_STREAMS = 1_000;
const FANOUT_SLOW_MS = 100;

const encoder = new TextEncoder();
const PING = encoder.encode(`: ping\n\n`);

// The bus hands the same event object to every subscriber: it is serialised and encoded once, not once per stream.
const frames = new WeakMap<AppEvent, Uint8Array>();
export function frame(event: AppEvent): Uint8Array {
  let bytes = frames.get(event);
  if (!bytes) {
    bytes = encoder.encode(
      `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ seq: event.seq, type: event.type, sessionId: event.sessionId, payload: event.payload, at: event.createdAt })}\n\n`,
    );
    frames.set(event, bytes);
  }
  return bytes;
}

/** What a stream must keep satisfying; streams with the same key share one check (see lib/auth/guards.ts). */
export type StreamCheck = { key: string; stillAllowed: () => Promise<boolean> };

export type Member = {
  visible: (event: AppEvent) => boolean;
  write: (bytes: Uint8Array) => void;
  close: () => void;
  /** The last seq this stream has taken (shown or skipped); nothing at or below it is sent again. */
  cursor: number;
  /** False while the stream reads its backlog: live events wait in `buffered` until it joins. */
  live: boolean;
  buffered: AppEvent[];
  closed: boolean;
};

class Group {
  readonly members = new Set<Member>();
  private chain: Promise<void> = Promise.resolve();
  private stopTickers: Array<() => void> = [];

  constructor(
    readonly key: string,
    private readonly check: (() => Promise<boolean>) | undefined,
  ) {
    this.stopTickers.push(heartbeats.add(() => this.each((m) => m.write(PING))));
    if (check) this.stopTickers.push(rechecks.add(() => this.enqueue(() => undefined)));
  }

  /** Runs `task` after everything queued before it, once the claim has been checked again; a failed check closes all. */
  enqueue(task: () => void): Promise<void> {
    this.chain = this.chain
      .then(async () => {
        let ok = true;
        // A check that cannot be made (the database is down) fails closed: the streams close and their clients reconnect.
        // So does one that hangs (the group would stay open on heartbeats, silent, and hold every later stream of the
        // claim) or throws before it returns a promise.
        if (this.check) ok = await checkWithin(this.check, CHECK_TIMEOUT_MS);
        if (!ok) return this.each((m) => m.close());
        task();
      })
      .catch((error) => log("warn", "event_stream_task_failed", { error: String(error) }));
    return this.chain;
  }

  each(fn: (m: Member) => void): void {
    for (const m of [...this.members]) if (!m.closed) fn(m);
  }

  dispose(): void {
    this.stopTickers.forEach((stop) => stop());
    this.stopTickers = [];
  }
}

function checkWithin(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const answer = Promise.resolve()
    .then(check)
    .then(
      (ok) => ok === true,
      () => false,
    );
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/** One timer for all groups instead of one per connection (each costs memory and a wake-up). */
class SharedTicker {
  private readonly members = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly ms: number) {}

  add(tick: () => void): () => void {
    this.members.add(tick);
    if (!this.timer) {
      this.timer = setInterval(() => this.members.forEach((m) => m()), this.ms);
      this.timer.unref();
    }
    return () => {
      this.members.delete(tick);
      if (this.members.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }
}

const heartbeats = new SharedTicker(HEARTBEAT_MS);
const rechecks = new SharedTicker(RECHECK_MS);

const globalForFanOut = processSlots<{
  toolgateStreamGroups?: Map<string, Group>;
  toolgateFanOutListening?: Promise<void>;
}>();
const groups = (globalForFanOut.toolgateStreamGroups ??= new Map<string, Group>());
provideMetricSource("sseConnections", () => [...groups.values()].reduce((n, g) => n + g.members.size, 0));

let anonymous = 0;

/** Adds a stream to the group of its check (a stream without a key gets a group of its own). */
export function joinGroup(member: Member, check: StreamCheck | undefined): { group: Group; leave: () => void } {
  const key = check?.key ?? `\u0000stream-${++anonymous}`;
  let group = groups.get(key);
  if (!group) {
    group = new Group(key, check?.stillAllowed);
    groups.set(key, group);
  }
  group.members.add(member);
  const joined = group;
  return {
    group: joined,
    leave: () => {
      joined.members.delete(member);
      if (joined.members.size === 0 && groups.get(key) === joined) {
        groups.delete(key);
        joined.dispose();
      }
    },
  };
}

/** Subscribes this process's fan-out to the bus once; resolves when live events flow (before any backlog is read). */
export function listen(): Promise<void> {
  // A failed subscription (the database was down) is not kept: the next stream tries again.
  globalForFanOut.toolgateFanOutListening ??= subscribeEvents(deliver).then(
    () => undefined,
    (error: unknown) => {
      globalForFanOut.toolgateFanOutListening = undefined;
      throw error;
    },
  );
  return globalForFanOut.toolgateFanOutListening;
}

function deliver(event: AppEvent): void {
  const start = performance.now();
  let streams = 0;
  let pending = 0;
  const finished = () => {
    if (--pending > 0) return;
    const ms = performance.now() - start;
    observeFanOut(ms / 1000);
    if (streams >= FANOUT_LOG_STREAMS || ms > FANOUT_SLOW_MS)
      log(ms > FANOUT_SLOW_MS ? "warn" : "info", "event_fanout", {
        seq: event.seq,
        type: event.type,
        streams,
        ms: Math.round(ms * 10) / 10,
      });
  };
  for (const group of groups.values()) {
    let targets: Member[] | null = null;
    for (const m of group.members) {
      if (m.closed) continue;
      if (!m.live) {
        m.buffered.push(event);
        continue;
      }
      if (event.seq <= m.cursor) continue;
      m.cursor = event.seq;
      // One listener serves every group: a filter that throws drops its own stream, never the event for the others.
      let shown = false;
      try {
        shown = m.visible(event);
      } catch {
        m.close();
      }
      if (shown) (targets ??= []).push(m);
    }
    if (!targets) continue;
    const to = targets;
    streams += to.length;
    pending += 1;
    const bytes = frame(event);
    group.enqueue(() => to.forEach((m) => !m.closed && m.write(bytes))).finally(finished);
  }
}
