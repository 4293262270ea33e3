import { describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { fusedAnswer } from "../../bench/lib/fused-answer.ts";

// bench/runtime-floor.ts's "fused" step claims to do the contract's per-request work on a cached
// prices answer: these check it answers what the service answers in shape (a gzip member whose
// JSON has the data and the per-request meta, the headers with the figures that change per
// request), so the floor it measures is the floor of real work.
const KEY = `sk_live_${"Ab1".repeat(10)}Cd`;
const body = (barcode: string) => JSON.stringify({ barcode, prices: [{ chain_id: "shufersal", name: "חלב תנובה 3%", price_ils: "6.90" }] });
const ask = (barcode: string, headers: Record<string, string> = { "x-api-key": KEY, "accept-encoding": "gzip" }) =>
  fusedAnswer(new Request(`http://127.0.0.1/fused?barcode=${barcode}`, { headers }), "127.0.0.1", body);

describe("the fused prices answer (bench/lib/fused-answer.ts)", () => {
  test("a gzip answer whose JSON has the cached data and this request's meta; the per-request headers follow it", async () => {
    const first = ask("7290000066318");
    const firstId = first.headers.get("x-request-id");
    const firstQuota = Number(first.headers.get("x-quota-remaining"));
    const second = ask("7290000066318");
    expect(second.status).toBe(200);
    expect(second.headers.get("content-encoding")).toBe("gzip");
    const json = JSON.parse(gunzipSync(new Uint8Array(await second.arrayBuffer())).toString("utf8"));
    expect(json.data).toEqual(JSON.parse(body("7290000066318")));
    expect(json.meta.request_id).toBe(second.headers.get("x-request-id")!);
    expect(json.meta.request_id).not.toBe(firstId);
    expect(json.meta.quota_remaining).toBe(firstQuota - 1);
    expect(Number(second.headers.get("x-quota-remaining"))).toBe(firstQuota - 1);
    expect(second.headers.get("etag")).toMatch(/^W\/"1-[0-9a-f]+"$/);
  });

  test("each barcode gets its own data and tag; an answer made later does not change one already made", async () => {
    const milk = ask("7290000066318");
    const bread = ask("7290000000015");
    expect(bread.headers.get("etag")).not.toBe(milk.headers.get("etag"));
    const milkJson = JSON.parse(gunzipSync(new Uint8Array(await milk.arrayBuffer())).toString("utf8"));
    const breadJson = JSON.parse(gunzipSync(new Uint8Array(await bread.arrayBuffer())).toString("utf8"));
    expect(milkJson.data.barcode).toBe("7290000066318");
    expect(breadJson.data.barcode).toBe("7290000000015");
  });

  test("no usable key, or a request the fused path does not cover, is refused (401), not answered", () => {
    expect(ask("7290000066318", { "accept-encoding": "gzip" }).status).toBe(401);
    expect(ask("7290000066318", { "x-api-key": "sk_live_short", "accept-encoding": "gzip" }).status).toBe(401);
    expect(ask("7290000066318", { "x-api-key": KEY }).status).toBe(401);
    expect(ask("7290000066318", { "x-api-key": KEY, "accept-encoding": "gzip", "if-none-match": "*" }).status).toBe(401);
  });
});
