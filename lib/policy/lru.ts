// A bounded map that forgets the least recently used entry first. A Map keeps insertion order, so a hit is
// moved to the end and the first key is always the coldest. (First-in-first-out eviction missed on every call
// once more contexts were active than the cache holds, since the oldest insert was evicted even when hot.)
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly limit: number) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    if (this.map.has(key)) this.map.delete(key);
    else if (this.map.size >= this.limit) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, value);
  }
}
