import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import * as z from "zod";
import { gunzipSync } from "node:zlib";
import { PrebuiltJson, documentedOnly, envelopeBytes, gzippedEnvelopeBytes, prebuiltJson } from "../../../src/http/prebuilt/prebuilt-json.ts";

describe("prebuilt JSON answers", () => {
  test("envelopeBytes writes data then meta as UTF-8, valid JSON with Hebrew intact", () => {
    const bytes = envelopeBytes(PrebuiltJson.of({ name: "חלב", n: [1, 2] }), { request_id: "r1" });
    expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual({ data: { name: "חלב", n: [1, 2] }, meta: { request_id: "r1" } });
  });

  test("a compact answer (held deflated only) sends the same JSON, plain or gzipped, alone or listed, and holds fewer bytes", () => {
    const value = { name: "חלב", stores: Array.from({ length: 300 }, (_, i) => ({ store_id: String(i), branch_name: `סניף ${i}`, price_ils: "6.90" })) };
    const text = new TextEncoder().encode(JSON.stringify(value));
    const compact = PrebuiltJson.compact(text);
    expect(compact.size).toBe(text.length);
    expect(compact.heldBytes).toBeLessThan(text.length / 5);
    expect(compact.bytes).toEqual(text);
    const decode = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));
    expect(decode(envelopeBytes(compact, { n: 1 }))).toEqual({ data: value, meta: { n: 1 } });
    expect(decode(gunzipSync(gzippedEnvelopeBytes(compact, { n: 1 })))).toEqual({ data: value, meta: { n: 1 } });
    const list = PrebuiltJson.list([PrebuiltJson.of({ a: 1 }), compact, PrebuiltJson.compact(text)]);
    expect(decode(envelopeBytes(list, {}))).toEqual({ data: [{ a: 1 }, value, value], meta: {} });
    expect(decode(gunzipSync(gzippedEnvelopeBytes(list, {})))).toEqual({ data: [{ a: 1 }, value, value], meta: {} });
  });

  test("the module hook sends the bytes with the status and headers set by the hooks", async () => {
    const app = new Elysia()
      .onAfterHandle(({ set, response }) => {
        set.headers["x-extra"] = "1";
        (response as { meta: Record<string, unknown> }).meta.filled = true;
      })
      .use(
        new Elysia()
          .use(prebuiltJson())
          .get("/p", ({ set }) => {
            set.status = 201;
            return { data: PrebuiltJson.of({ a: 1 }), meta: {} };
          })
          .get("/o", () => ({ data: { a: 2 }, meta: {} })),
      );
    const res = await app.handle(new Request("http://localhost/p"));
    expect(res.status).toBe(201);
    expect(res.headers.get("x-extra")).toBe("1");
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(await res.json()).toEqual({ data: { a: 1 }, meta: { filled: true } });
    // Plain objects are left to Elysia.
    expect(await (await app.handle(new Request("http://localhost/o"))).json()).toEqual({ data: { a: 2 }, meta: { filled: true } });
  });

  test("documentedOnly keeps the JSON Schema and skips runtime validation", () => {
    const schema = z.object({ a: z.number() });
    const loose = documentedOnly(schema);
    expect(z.toJSONSchema(loose)).toEqual(z.toJSONSchema(schema));
    const result = (loose as unknown as { "~standard": { validate(v: unknown): { value: unknown } } })["~standard"].validate({ a: "not a number" });
    expect(result).toEqual({ value: { a: "not a number" } });
    expect(schema.safeParse({ a: "x" }).success).toBe(false);
  });
});
