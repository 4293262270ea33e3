import { describe, expect, test } from "bun:test";
import { parseQuery } from "../../../src/http/request/query.ts";
import { PricesQuery } from "../../../src/modules/prices/model.ts";
import { parsePricesQuery } from "../../../src/modules/prices/parse-query.ts";

/** What a parse gave: its value, or its error's message and options (param). */
function outcome(parse: () => unknown) {
  try {
    return { ok: parse() };
  } catch (error) {
    return { error: (error as Error).message, name: (error as Error).name, options: (error as { options?: unknown }).options };
  }
}

const at = (query: string) => new Request(`http://localhost/api/v1/prices/?${query}`);

describe("GET /prices/'s common query, read without zod (parse-query.ts)", () => {
  test("parsePricesQuery answers and refuses exactly as PricesQuery does, over generated queries", () => {
    const barcodes = ["7290000066318", "555", "0007290000066318", "g-tomatoes", "g-", "G-tomatoes", "12ab", "", "1".repeat(20), "1".repeat(21), `g-${"a".repeat(58)}`, `g-${"a".repeat(59)}`, "%37290000066318", "7290000066318+", "g-tomatoes%2D"];
    const granularities = [undefined, "chain", "store", "Chain", "", "shelf", "chain%20"];
    const others = ["", "key=pk_live_abc", "foo=1", "foo", "chain_id=rami-levy", "chain_id=Rami", "city=%D7%97%D7%99%D7%A4%D7%94", "region=north", "near=32.08,34.78", "radius_km=2", "near=32.08,34.78&radius_km=2", "radius_km=90", "__proto__=1", "constructor=x", "toString=1"];
    let queries = 0;
    const check = (query: string) => {
      queries++;
      expect({ query, ...outcome(() => parsePricesQuery(at(query))) }).toStrictEqual({ query, ...outcome(() => parseQuery(at(query), PricesQuery)) });
    };
    for (const barcode of barcodes) {
      for (const granularity of granularities) {
        for (const other of others) {
          const parts = [`barcode=${barcode}`];
          if (granularity !== undefined) parts.push(`granularity=${granularity}`);
          if (other) parts.push(other);
          check(parts.join("&"));
          check([...parts].reverse().join("&"));
        }
      }
      // Given twice (the same or another value), or only one of two.
      check(`barcode=${barcode}&barcode=${barcode}`);
      check(`barcode=${barcode}&barcode=555`);
      check(`barcode=${barcode}&granularity=chain&granularity=chain`);
      check(`granularity=store&barcode=${barcode}&granularity=chain`);
    }
    for (const query of ["", "granularity=chain", "foo=1", "&&", "barcode", "barcode=", "=7290000066318", "barcode=7290000066318&&", "barcode=7290000066318#x"]) check(query);
    expect(queries).toBeGreaterThan(3000);
  });

  test("the common shape's value: the barcode as given and the granularity, its default chain", () => {
    expect(parsePricesQuery(at("barcode=7290000066318"))).toStrictEqual({ barcode: "7290000066318", granularity: "chain" });
    expect(parsePricesQuery(at("granularity=store&barcode=g-tomatoes&key=pk_live_x"))).toStrictEqual({ barcode: "g-tomatoes", granularity: "store" });
    expect(() => parsePricesQuery(at("barcode=12ab"))).toThrow("`barcode` must be a product id: 1–20 digits");
  });
});
