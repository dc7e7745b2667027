// The policy result caches evict the least recently used entry: a hot context survives a stream of cold ones.
import { describe, expect, it } from "vitest";
import { LruMap } from "@/lib/policy/lru";

describe("LruMap", () => {
  it("keeps what was used recently and forgets the coldest entry", () => {
    const lru = new LruMap<string, number>(3);
    lru.set("a", 1);
    lru.set("b", 2);
    lru.set("c", 3);
    expect(lru.get("a")).toBe(1); // a is now the most recent
    lru.set("d", 4); // evicts b, the coldest
    expect(lru.get("b")).toBeUndefined();
    expect([lru.get("a"), lru.get("c"), lru.get("d")]).toEqual([1, 3, 4]);
    expect(lru.size).toBe(3);
  });

  it("a hot key survives any number of cold inserts (FIFO eviction would drop it)", () => {
    const lru = new LruMap<number, string>(8);
    lru.set(-1, "hot");
    for (let i = 0; i < 1000; i++) {
      expect(lru.get(-1)).toBe("hot");
      lru.set(i, "cold");
    }
    expect(lru.size).toBe(8);
  });

  it("setting an existing key replaces it without evicting another", () => {
    const lru = new LruMap<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    lru.set("a", 3);
    expect([lru.get("a"), lru.get("b")]).toEqual([3, 2]);
  });
});
