import { describe, expect, test } from "bun:test";
import { paramValue, parseQueryString, queryParams } from "../../src/http/request/query-params.ts";

const viaUrlSearchParams = (query: string) => [...new URLSearchParams(query)];

describe("query parameters", () => {
  test("read as URLSearchParams reads them, whether or not anything is to decode", () => {
    const queries = [
      "",
      "barcode=7290000066318",
      "barcode=7290000066318&granularity=store&city=%D7%97%D7%99%D7%A4%D7%94",
      "a=1&&b=&=c&d&e==f&a=2",
      "q=a+b&r=a%2Bb&s=%zz&t=%E2%82",
      "city=תל אביב, יפו&x=\u00e9",
      "near=32.79,34.98&radius_km=5&chain_id=rami-levy",
      "&&&",
      "k=sk_live_" + "a".repeat(32),
      "a=%00&b=\u0001\u007f",
      "lone=\ud800",
    ];
    // Random text over the characters that matter (separators, escapes, ASCII and beyond).
    const alphabet = ["a", "b", "=", "&", "+", "%", "2", "B", "F", "%41", "é", " ", "-", ".", "~", "*", "#"];
    for (let i = 0; i < 2000; i++) {
      let q = "";
      for (let n = (i * 7919) % 13; n > 0; n--) q += alphabet[(i * 31 + n * 17 + n * n) % alphabet.length]!;
      queries.push(q);
    }
    for (const query of queries) expect([query, parseQueryString(query)]).toEqual([query, viaUrlSearchParams(query)]);
  });

  test("the request's query read once, without its fragment; paramValue is the first value, as URLSearchParams' get", () => {
    const request = new Request("http://x/api/v1/prices/?barcode=1&key=pk_live_x&barcode=2#frag=3");
    const params = queryParams(request);
    expect(queryParams(request)).toBe(params);
    expect(params).toEqual([["barcode", "1"], ["key", "pk_live_x"], ["barcode", "2"]]);
    expect(paramValue(params, "barcode")).toBe("1");
    expect(paramValue(params, "frag")).toBeNull();
    expect(queryParams(new Request("http://x/api/v1/prices/"))).toEqual([]);
  });
});
