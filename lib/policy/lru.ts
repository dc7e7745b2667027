// A bounded map that forgets entries nobody used lately, by the CLOCK (second-chance) approximation of LRU: every
// slot has a "used" bit that a hit sets; to make room, a hand sweeps the slots, clearing set bits and evicting the
// first slot whose bit was already clear. A hot entry is always used again before the hand comes back, so it
// survives any stream of cold inserts (first-in-first-out eviction missed on every call once more contexts were
// active than the cache holds). Hand-written because the hit path is the policy engine's hottest one: a hit is a
// Map lookup and one store, where an exact LRU on a Map deletes and re-inserts the key on every hit (measured 3×
// slower on the cached resolve, see BENCHMARKS.md).
export class LruMap<K, V> {
  private readonly index = new Map<K, number>();
  private readonly keys: K[] = [];
  private readonly values: V[] = [];
  private readonly used: boolean[] = [];
  private hand = 0;

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer");
  }

  get size(): number {
    return this.index.size;
  }

  get(key: K): V | undefined {
    const slot = this.index.get(key);
    if (slot === undefined) return undefined;
    this.used[slot] = true;
    return this.values[slot];
  }

  set(key: K, value: V): void {
    const existing = this.index.get(key);
    if (existing !== undefined) {
      this.values[existing] = value;
      this.used[existing] = true;
      return;
    }
    let slot = this.keys.length;
    if (slot < this.limit) {
      this.keys.push(key);
      this.values.push(value);
      this.used.push(false);
    } else {
      while (this.used[this.hand]) {
        this.used[this.hand] = false;
        this.hand = (this.hand + 1) % this.limit;
      }
      slot = this.hand;
      this.index.delete(this.keys[slot]!);
      this.keys[slot] = key;
      this.values[slot] = value;
      this.used[slot] = false;
      this.hand = (this.hand + 1) % this.limit;
    }
    this.index.set(key, slot);
  }
}
