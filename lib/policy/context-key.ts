// A context as a flat list of its field values, for the context caches. Finding a context seen before compares those
// values (=== on strings compares their text) after a hash of them picked the candidates; no string is built and no
// table of every value ever seen is kept. Two contexts match only when every field the resolution reads is the same
// value; the hash only decides where to look, so a collision costs a comparison, never a wrong result.
import { LruMap } from "./lru";
import type { PolicyContext } from "./types";

// Every field of PolicyContext must be read into the key below, or two contexts that differ only in it would share
// a result. A field added to the type and not listed here fails to compile.
const _KEYED_FIELDS = {
  mode: true,
  senderIsOwner: true,
  provider: true,
  model: true,
  agentId: true,
  sandboxed: true,
  subagentDepth: true,
  senderId: true,
  roles: true,
  teamIds: true,
} as const satisfies Record<keyof PolicyContext, true>;

/** Every field of PolicyContext, present: the engine's copies of a context are written as this, so a field added to
 * the type and not copied fails to compile. */
export type ContextCopy = Record<keyof PolicyContext, unknown>;

/** Where the principal (sender, roles, teams: what granted modes, group units and member sandboxing read) starts. */
export const PRINCIPAL_AT = 7;
/** Stands for a missing teams list (a count never is negative). */
const NO_LIST = -1;
/** Key positions whose last value and hash are remembered: the scalars and the first roles and teams. */
const MEMO_SLOTS = 24;
const NONE = Symbol("none");

export class ContextKey {
  /** The last context's key (valid until the next read): its values and each one's hash, `length` long. */
  readonly values: unknown[] = [];
  readonly hashes: number[] = [];
  length = 0;
  // The roles, then the teams, of the last context in the caller's order (the key keeps them sorted), for copy().
  private readonly listed: string[] = [];
  private listedLength = 0;
  private rolesCount = 0;
  private teamsCount = NO_LIST;
  // Successive requests mostly repeat a field (the mode, the provider, the roles): comparing it with the last value
  // at its position costs less than hashing it again.
  private readonly lastValues: unknown[] = new Array(MEMO_SLOTS).fill(NONE);
  private readonly lastHashes: number[] = new Array(MEMO_SLOTS).fill(0);

  /**
   * Reads the context into the key, each field and each list item once; false when a field holds a value the key
   * does not encode (an object, -0: a caller outside the type system), which the caller then resolves without the
   * caches.
   */
  read(context: PolicyContext): boolean {
    // Field by field, not a loop over names: a property read by a computed name is several times slower here.
    if (!this.put(0, context.mode) || !this.put(1, context.senderIsOwner) || !this.put(2, context.provider))
      return false;
    if (!this.put(3, context.model) || !this.put(4, context.agentId) || !this.put(5, context.sandboxed)) return false;
    if (!this.put(6, context.subagentDepth) || !this.put(PRINCIPAL_AT, context.senderId)) return false;
    this.listedLength = 0;
    let n = this.putSet(PRINCIPAL_AT + 1, context.roles);
    if (n < 0) return false;
    this.rolesCount = this.listedLength;
    const teamIds = context.teamIds;
    if (teamIds === undefined) {
      this.values[n] = NO_LIST;
      this.hashes[n] = NO_LIST;
      this.teamsCount = NO_LIST;
      n += 1;
    } else {
      n = this.putSet(n, teamIds);
      if (n < 0) return false;
      this.teamsCount = this.listedLength - this.rolesCount;
    }
    this.length = n;
    return true;
  }

  /**
   * The last context read, rebuilt from what the key read: its values, the lists in the caller's order, the declared
   * fields only. A miss resolves this copy, so the resolution sees exactly the values it is cached under however the
   * caller's object answers a second read, and the result's copy of its context holds nothing the key did not
   * compare (an extra key of the first caller would otherwise reach every later caller of that result).
   */
  copy(): PolicyContext {
    const { values, listed, rolesCount, teamsCount } = this;
    const copy: ContextCopy = {
      roles: listed.slice(0, rolesCount) as PolicyContext["roles"],
      senderIsOwner: values[1] as boolean,
      mode: values[0] as PolicyContext["mode"],
      provider: values[2] as string | undefined,
      model: values[3] as string | undefined,
      agentId: values[4] as string | undefined,
      teamIds: teamsCount === NO_LIST ? undefined : listed.slice(rolesCount, rolesCount + teamsCount),
      senderId: values[PRINCIPAL_AT] as string | undefined,
      sandboxed: values[5] as boolean | undefined,
      subagentDepth: values[6] as number | undefined,
    };
    return copy as unknown as PolicyContext;
  }

  private put(at: number, value: unknown): boolean {
    if (at < MEMO_SLOTS && value === this.lastValues[at] && !(value === 0 && Object.is(value, -0))) {
      this.values[at] = value;
      this.hashes[at] = this.lastHashes[at]!;
      return true;
    }
    const hash = hashValue(value);
    if (hash === undefined) return false;
    this.values[at] = value;
    this.hashes[at] = hash;
    if (at < MEMO_SLOTS) {
      this.lastValues[at] = value;
      this.lastHashes[at] = hash;
    }
    return true;
  }

  /** Roles and teams are sets to the resolution, so they are written sorted: their order never matters. */
  private putSet(at: number, list: unknown): number {
    if (!Array.isArray(list)) return -1;
    // The length and each item are read once: a list that answered differently on a second read (a Proxy) would
    // otherwise leave the key describing a list the resolution never saw.
    const length: number = list.length;
    this.values[at] = length;
    this.hashes[at] = length;
    const start = at + 1;
    if (length > 16) return this.putSorted(start, list, length);
    const { values, hashes } = this;
    for (let i = 0; i < length; i += 1) {
      const item: unknown = list[i];
      if (typeof item !== "string" || !this.put(start + i, item)) return -1;
      this.listed[this.listedLength++] = item;
      // Insertion sort as the names arrive: a sender's roles and teams are a handful.
      const hash = hashes[start + i]!;
      let j = start + i;
      for (; j > start && (values[j - 1] as string) > item; j -= 1) {
        values[j] = values[j - 1];
        hashes[j] = hashes[j - 1]!;
      }
      values[j] = item;
      hashes[j] = hash;
    }
    return start + length;
  }

  private putSorted(start: number, list: readonly unknown[], length: number): number {
    const items: string[] = [];
    for (let i = 0; i < length; i += 1) {
      const item: unknown = list[i];
      if (typeof item !== "string") return -1;
      items.push(item);
      this.listed[this.listedLength++] = item;
    }
    items.sort();
    for (let i = 0; i < length; i += 1) if (!this.put(start + i, items[i])) return -1;
    return start + length;
  }
}

/** A hash of one field value; undefined for a value the key does not encode. */
function hashValue(value: unknown): number | undefined {
  switch (typeof value) {
    case "string":
      return hashString(value);
    case "boolean":
      return value ? 1 : 2;
    case "undefined":
      return 3;
    case "number":
      // -0 would compare equal to 0 while a copy of the context keeps it apart.
      return Object.is(value, -0) ? undefined : Math.imul(value | 0, 0x9e3779b1) ^ 5;
    default:
      return undefined;
  }
}

/** At most the first and the last 32 characters: the hash only picks candidates, equality is decided on the text. */
function hashString(text: string): number {
  let hash = Math.imul(text.length, 0x9e3779b1);
  const head = Math.min(text.length, 32);
  for (let i = 0; i < head; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  for (let i = Math.max(head, text.length - 32); i < text.length; i += 1)
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}

type Entry<V> = { values: unknown[]; value: V; next?: Entry<V> };
/** Keys sharing a hash (rare) are chained; a longer chain loses its oldest. */
const CHAIN_LIMIT = 4;

/**
 * A bounded map from a slice of a ContextKey to a value: the slice's hash picks a chain, its values confirm. find()
 * remembers where it looked, so the add() after a miss neither hashes nor looks up again.
 */
export class KeyedCache<V> {
  private readonly chains: LruMap<number, Entry<V>>;
  private lastHash = 0;
  private lastHead: Entry<V> | undefined;

  constructor(limit: number) {
    this.chains = new LruMap(limit);
  }

  find(key: ContextKey, from: number, to: number): V | undefined {
    this.lastHash = hashOf(key, from, to);
    this.lastHead = this.chains.get(this.lastHash);
    for (let entry = this.lastHead; entry; entry = entry.next) {
      if (sameSlice(entry.values, key.values, from, to)) return entry.value;
    }
    return undefined;
  }

  /** Adds what the last find(key, from, to) missed; nothing may use this cache in between. */
  add(key: ContextKey, from: number, to: number, value: V): void {
    const head = this.lastHead;
    for (let n = 1, at = head; at; n += 1, at = at.next) if (n >= CHAIN_LIMIT - 1) at.next = undefined;
    this.chains.set(this.lastHash, { values: key.values.slice(from, to), value, next: head });
  }
}

function hashOf(key: ContextKey, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i += 1) hash = Math.imul(hash ^ key.hashes[i]!, 0x01000193);
  // 30 bits: a small integer to V8, so the chain map's key is never a boxed number.
  return hash & 0x3fffffff;
}

function sameSlice(stored: readonly unknown[], values: readonly unknown[], from: number, to: number): boolean {
  if (stored.length !== to - from) return false;
  for (let i = from; i < to; i += 1) if (stored[i - from] !== values[i]) return false;
  return true;
}
