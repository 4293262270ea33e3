import { describe, expect, test } from "bun:test";
import { ResultCache } from "../../../src/http/answers/result-cache.ts";

describe("ResultCache", () => {
  test("hits within the version and before validUntil; misses after", () => {
    const cache = new ResultCache<string>(100);
    cache.set(1, "a", "A", 1000, 10);
    expect(cache.get(1, "a", 999)).toBe("A");
    expect(cache.get(1, "a", 1000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test("a new data version drops everything", () => {
    const cache = new ResultCache<string>(100);
    cache.set(1, "a", "A", Infinity, 10);
    cache.set(1, "b", "B", Infinity, 10);
    expect(cache.get(2, "a", 0)).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set(2, "a", "A2", Infinity, 10);
    expect(cache.get(2, "a", 0)).toBe("A2");
  });

  test("evicts the least recently used past the weight bound; refuses entries heavier than the bound", () => {
    const cache = new ResultCache<string>(30);
    cache.set(1, "a", "A", Infinity, 10);
    cache.set(1, "b", "B", Infinity, 10);
    cache.set(1, "c", "C", Infinity, 10);
    expect(cache.get(1, "a", 0)).toBe("A"); // a is now the most recent
    cache.set(1, "d", "D", Infinity, 10); // evicts b
    expect(cache.get(1, "b", 0)).toBeUndefined();
    expect(["a", "c", "d"].map((k) => cache.get(1, k, 0))).toEqual(["A", "C", "D"]);
    cache.set(1, "huge", "H", Infinity, 31);
    expect(cache.get(1, "huge", 0)).toBeUndefined();
    expect(cache.size).toBe(3);
  });

  test("replacing a key keeps the weight right", () => {
    const cache = new ResultCache<string>(20);
    cache.set(1, "a", "A", Infinity, 10);
    cache.set(1, "a", "A'", Infinity, 10);
    cache.set(1, "b", "B", Infinity, 10);
    expect(cache.get(1, "a", 0)).toBe("A'");
    expect(cache.get(1, "b", 0)).toBe("B");
  });

  test("a hit moves an entry to the newest end only from the older half (the newer half goes after the older one anyway)", () => {
    const cache = new ResultCache<string>(40);
    for (const k of ["a", "b", "c", "d"]) cache.set(1, k, k.toUpperCase(), Infinity, 10);
    expect(cache.get(1, "a", 0)).toBe("A"); // the oldest: moved after d
    expect(cache.get(1, "d", 0)).toBe("D"); // the newer half: left where it is (b, c, d, a)
    cache.set(1, "e", "E", Infinity, 10); // evicts b
    cache.set(1, "f", "F", Infinity, 10); // evicts c
    const held = () => ["a", "b", "c", "d", "e", "f"].filter((k) => cache.peek(k, 0) !== undefined);
    expect(held()).toEqual(["a", "d", "e", "f"]);
    cache.set(1, "g", "G", Infinity, 10); // evicts d: its hit came while it was among the newest
    expect(held()).toEqual(["a", "e", "f"]);
  });
});
