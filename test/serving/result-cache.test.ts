import { describe, expect, test } from "bun:test";
import { ResultCache } from "../../src/serving/result-cache.ts";

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

  test("a hit gives an entry a second chance: eviction moves it to the newest end, unmarked, and drops the next unused one", () => {
    const cache = new ResultCache<string>(40);
    for (const k of ["a", "b", "c", "d"]) cache.set(1, k, k.toUpperCase(), Infinity, 10);
    expect(cache.get(1, "a", 0)).toBe("A"); // marked (the hit itself moves nothing)
    expect(cache.get(1, "d", 0)).toBe("D"); // marked
    cache.set(1, "e", "E", Infinity, 10); // a moved after e (b, c, d, e, a), b evicted
    cache.set(1, "f", "F", Infinity, 10); // c evicted
    const held = () => ["a", "b", "c", "d", "e", "f", "g", "h"].filter((k) => cache.peek(k, 0) !== undefined);
    expect(held()).toEqual(["a", "d", "e", "f"]);
    cache.set(1, "g", "G", Infinity, 10); // d moved after g, unmarked; e evicted
    expect(held()).toEqual(["a", "d", "f", "g"]);
    cache.set(1, "h", "H", Infinity, 10); // a (unmarked when moved) is now the oldest: evicted
    expect(held()).toEqual(["d", "f", "g", "h"]);
  });

  test("when every older entry was used, they are moved and the walk drops the oldest of them, never the entry just added", () => {
    const cache = new ResultCache<string>(30);
    for (const k of ["a", "b", "c"]) cache.set(1, k, k.toUpperCase(), Infinity, 10);
    for (const k of ["a", "b", "c"]) expect(cache.get(1, k, 0)).toBe(k.toUpperCase());
    cache.set(1, "d", "D", Infinity, 20); // a, b, c moved after d unmarked; then a and b evicted
    expect(["a", "b", "c", "d"].filter((k) => cache.peek(k, 0) !== undefined)).toEqual(["c", "d"]);
  });

  test("keys filed under a group are found by member until they expire, are evicted or replaced, or the version changes", () => {
    // Keys "group/member" are filed; others ("plain") are held by key alone.
    const fileUnder = (key: string) => (key.includes("/") ? { group: key.split("/")[0]!, member: key.split("/")[1]! } : undefined);
    const cache = new ResultCache<string>(30, fileUnder);
    cache.set(1, "g/a", "A", 1000, 10);
    cache.set(1, "g/b", "B", Infinity, 10);
    cache.set(1, "plain", "P", Infinity, 10);
    const inG = cache.member(1, "g", 0);
    expect([inG("a"), inG("b"), inG("plain"), inG("c")]).toEqual(["A", "B", undefined, undefined]);
    expect(cache.member(1, "other", 0)("a")).toBeUndefined();
    expect(cache.member(2, "g", 0)("a")).toBeUndefined(); // another version: get's to answer
    expect(cache.member(1, "g", 1000)("a")).toBeUndefined(); // expired
    cache.set(1, "g/b", "B2", Infinity, 10);
    expect(inG("b")).toBe("B2");
    cache.get(2, "g/b", 0); // a new version drops everything, also from lookups made before
    expect([inG("a"), inG("b"), cache.member(2, "g", 0)("b")]).toEqual([undefined, undefined, undefined]);
  });

  test("an evicted filed entry leaves its group", () => {
    const cache = new ResultCache<string>(20, (key) => ({ group: "g", member: key }));
    cache.set(1, "a", "A", Infinity, 10);
    cache.set(1, "b", "B", Infinity, 10);
    cache.set(1, "c", "C", Infinity, 10); // evicts a, the oldest unused
    const inG = cache.member(1, "g", 0);
    expect([inG("a"), inG("b"), inG("c")]).toEqual([undefined, "B", "C"]);
    expect(cache.peek("a", 0)).toBeUndefined();
  });

  test("members named by digits are told apart as their text is, by member and by memberEntry: leading zeros, lengths, digits among letters", () => {
    const names = ["7290000066318", "07290000066318", "0", "00", "1", "123456789012345", "1234567890123456", "12345678901234567890", "1e3", "1000", "12a", "-1", "g-tomatoes", ""];
    const cache = new ResultCache<string>(1000, (key) => ({ group: "g", member: key }));
    names.forEach((name) => cache.set(1, name, `value of ${name}`, Infinity, 1));
    const inG = cache.member(1, "g", 0);
    expect(names.map(inG)).toEqual(names.map((name) => `value of ${name}`));
    expect(names.map((name) => cache.memberEntry(1, "g", name, 0))).toEqual(names.map((name) => `value of ${name}`));
    expect(["7.29e12", " 1", "01000", "+1", "1.0"].map(inG)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(["7.29e12", " 1", "01000", "+1", "1.0"].map((name) => cache.memberEntry(1, "g", name, 0))).toEqual([undefined, undefined, undefined, undefined, undefined]);
    // Replaced and evicted digit members leave as others do.
    cache.set(1, "1000", "again", Infinity, 1);
    expect(inG("1000")).toBe("again");
    const small = new ResultCache<string>(1, (key) => ({ group: "g", member: key }));
    small.set(1, "1000", "A", Infinity, 1);
    small.set(1, "2000", "B", Infinity, 1);
    expect([small.member(1, "g", 0)("1000"), small.member(1, "g", 0)("2000")]).toEqual([undefined, "B"]);
  });
});
