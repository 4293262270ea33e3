/**
 * /mcp's edges: the key (before any MCP processing), bad input as JSON-RPC errors (never a 5xx),
 * size and origin limits, the transport's GET/DELETE, plan gates and quota counting of tool calls.
 */
import { afterEach, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { testApp, commitData, settle } from "../../helpers/app.ts";
import { Fixture } from "../../helpers/fixture.ts";
import { newKey } from "../../helpers/keys.ts";
import { refreshChainProducts } from "../../../src/db/chain-products.ts";
import { loadSettings } from "../../../src/config.ts";
import { createKey } from "../../../src/accounts/keys.ts";
import { createAccount } from "../../../src/accounts/accounts.ts";
import { log } from "../../../src/lib/log.ts";
import { inProcessClient, rpc, texts } from "../../helpers/mcp.ts";

const ctx = testApp({ settings: loadSettings({ MEHIR_RATE_FREE: "100000", MEHIR_RATE_PRO: "100000", MEHIR_QUOTA_FREE: "3" }) });
const f = new Fixture(ctx.db.prices, ctx.chainIds);
const MILK = "7290000066318";
let pro: Record<string, string>;

beforeAll(async () => {
  const s1 = f.store("shufersal", "1", { city: "חיפה", region: "haifa" });
  f.price(s1, f.product(MILK, "חלב תנובה 3% 1 ליטר"), 690);
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  await ctx.deps.search!.rebuild(ctx.db.prices);
  pro = newKey(ctx.deps, "pro").headers;
});

const send = (request: Request) => ctx.app.handle(request);
const callTool = (name: string, args: unknown, id = 1) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

describe("the key, before MCP", () => {
  test("no key: 401 missing_api_key problem+json, and the SDK client cannot connect", async () => {
    const res = await send(rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toStartWith("application/problem+json");
    expect(await res.json()).toMatchObject({ code: "missing_api_key", status: 401, type: "/docs/errors#missing_api_key" });
    expect(inProcessClient(ctx.app, {})).rejects.toThrow(/401/);
  });

  test("an unknown key: 401 invalid_api_key; a publishable key: 403", async () => {
    const unknown = await send(rpc(callTool("list_chains", {}), { "x-api-key": "sk_test_" + "A".repeat(32) }));
    expect(unknown.status).toBe(401);
    expect((await unknown.json()).code).toBe("invalid_api_key");
    const account = createAccount(ctx.db.accounts, { email: "widget-owner@example.com", plan: "pro" }, new Date());
    const { key } = createKey(ctx.db.accounts, { accountId: account.id, kind: "publishable" }, new Date());
    const publishable = await send(rpc(callTool("list_chains", {}), { "x-api-key": key }));
    expect(publishable.status).toBe(403);
    expect((await publishable.json()).code).toBe("publishable_key_not_allowed");
  });

  test("the key may come as Authorization: Bearer (on /mcp only)", async () => {
    const bearer = { authorization: `Bearer ${pro["x-api-key"]}` };
    const client = await inProcessClient(ctx.app, bearer);
    const result = await client.callTool({ name: "get_prices", arguments: { barcode: MILK } });
    expect(result.isError).toBeFalsy();
    await client.close();
    const api = await send(new Request(`http://localhost/api/v1/prices/?barcode=${MILK}`, { headers: bearer }));
    expect(api.status).toBe(401);
  });
});

describe("bad input", () => {
  test("a malformed argument is a JSON-RPC error -32602 naming it, over a 200", async () => {
    const res = await send(rpc(callTool("get_prices", { barcode: "abc" }), pro));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain("`barcode` must be a product id: 1–20 digits");
    expect(body.error.data).toEqual({ param: "arguments.barcode" });
    // A missing argument is told in words, not in the validator's ("expected string, received undefined").
    const absent = await (await send(rpc(callTool("get_prices", {}), pro))).json();
    expect(absent.error).toMatchObject({ code: -32602, message: "MCP error -32602: Invalid arguments for get_prices: `barcode` is required.", data: { param: "arguments.barcode" } });

    const client = await inProcessClient(ctx.app, pro);
    const missing = client.callTool({ name: "compare_basket", arguments: { items: [{ barcode: MILK, quantity: 0 }] } });
    expect(missing).rejects.toBeInstanceOf(McpError);
    expect(missing).rejects.toMatchObject({ code: -32602, data: { param: "arguments.items[0].quantity" } });
    const extra = client.callTool({ name: "get_prices", arguments: { barcode: MILK, colour: "red" } });
    expect(extra).rejects.toMatchObject({ code: -32602, data: { param: "arguments.colour" } });
    const wrongType = client.callTool({ name: "get_prices", arguments: { barcode: MILK, near: "32.8,35.0" } });
    expect(wrongType).rejects.toMatchObject({ code: -32602, data: { param: "arguments.near" } });
    await client.close();
  });

  test("an unknown tool is a JSON-RPC error -32602 listing the tools", async () => {
    const body = await (await send(rpc(callTool("buy_milk", {}), pro))).json();
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain('Unknown tool "buy_milk"; the tools are search_products, get_prices');
  });

  test("an unknown method is -32601; a body that is not JSON or not JSON-RPC is a 400 JSON-RPC error", async () => {
    const unknown = await (await send(rpc({ jsonrpc: "2.0", id: 7, method: "prompts/get", params: { name: "x" } }, pro))).json();
    expect(unknown).toMatchObject({ id: 7, error: { code: -32601 } });
    for (const body of ["{not json", "", JSON.stringify({ hello: "world" }), JSON.stringify([{ id: 1 }])]) {
      const res = await send(rpc(body, pro));
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBeOneOf([-32700, -32600]);
    }
  });

  test("wrong media type or Accept: the transport's 415 / 406, never a 5xx", async () => {
    const text = await send(rpc(callTool("list_chains", {}), { ...pro, "content-type": "text/plain" }));
    expect(text.status).toBe(415);
    const accept = await send(rpc(callTool("list_chains", {}), { ...pro, accept: "application/json" }));
    expect(accept.status).toBe(406);
  });

  test("a body over 64 KiB: 413 payload_too_large problem+json, declared or streamed", async () => {
    const big = JSON.stringify(callTool("search_products", { query: "x".repeat(70 * 1024) }));
    const declared = await send(rpc(big, pro));
    expect(declared.status).toBe(413);
    expect((await declared.json()).code).toBe("payload_too_large");
    const chunks = [new TextEncoder().encode(big.slice(0, 40_000)), new TextEncoder().encode(big.slice(40_000))];
    const stream = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const streamed = await send(new Request("http://localhost/mcp", { method: "POST", headers: { ...pro, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: stream }));
    expect(streamed.status).toBe(413);
  });

  test("a page of another site is refused (DNS rebinding); the service's own origin is not", async () => {
    const foreign = await send(rpc(callTool("list_chains", {}), { ...pro, origin: "http://evil.example" }));
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).code).toBe("origin_not_allowed");
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    const own = await send(rpc(callTool("list_chains", {}), { ...pro, origin: "http://localhost" }));
    expect(own.status).toBe(200);
  });

  test("GET and DELETE: 405 with Allow: POST (stateless: no server stream, no session)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await send(new Request("http://localhost/mcp", { method, headers: { ...pro, accept: "text/event-stream" } }));
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect((await res.json()).code).toBe("method_not_allowed");
    }
    const put = await send(new Request("http://localhost/mcp", { method: "PUT", headers: pro }));
    expect(put.status).toBe(405);
  });

  test("the answer carries no session id", async () => {
    const res = await send(rpc({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }, pro));
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect((await res.json()).result.serverInfo.name).toBe("mehir");
  });
});

describe("plans and quota", () => {
  test("a Free key: the Free tools answer; the Basic and Pro ones are tool errors plan_upgrade_required", async () => {
    const free = newKey(ctx.deps, "free").headers;
    const client = await inProcessClient(ctx.app, free);
    expect((await client.callTool({ name: "get_prices", arguments: { barcode: MILK } })).isError).toBeFalsy();
    const gated = [
      ["price_history", { barcode: MILK }, "Basic"],
      ["compare_basket", { items: [{ barcode: MILK }] }, "Pro"],
      ["promotions", {}, "Pro"],
    ] as const;
    for (const [name, args, plan] of gated) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as any).error.code).toBe("plan_upgrade_required");
      expect(texts(result)[0]).toContain(`needs the ${plan} plan or higher`);
    }
    await client.close();
  });

  test("a live key: each tool call counts one call, listing does not, a gated call does not, and a spent quota is a tool error", async () => {
    const live = newKey(ctx.deps, "free", "live").headers; // MEHIR_QUOTA_FREE=3 here
    const seen: Response[] = [];
    const client = await inProcessClient(ctx.app, live, seen);
    await client.listTools();
    expect(seen.at(-1)!.headers.get("x-quota-remaining")).toBe("3");

    const remaining = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).toBeFalsy();
      return (result.structuredContent as any).meta.quota_remaining;
    };
    expect(await remaining("get_prices", { barcode: MILK })).toBe(2);
    expect(seen.at(-1)!.headers.get("x-quota-remaining")).toBe("2");
    expect((await client.callTool({ name: "price_history", arguments: { barcode: MILK } })).isError).toBe(true);
    expect(await remaining("list_chains", {})).toBe(1);
    // The quota is the account's: a direct API call draws on it too.
    const direct = await send(new Request("http://localhost/api/v1/chains/", { headers: live }));
    expect((await direct.json()).meta.quota_remaining).toBe(0);

    const spent = await client.callTool({ name: "search_products", arguments: { query: "חלב" } });
    expect(spent.isError).toBe(true);
    expect((spent.structuredContent as any).error).toMatchObject({ code: "quota_exceeded", status: 429 });
    expect(texts(spent)[0]).toStartWith("quota_exceeded: This month's quota is spent");
    // The MCP endpoint itself keeps answering (listing tools is free).
    expect((await client.listTools()).tools.length).toBe(9);
    await client.close();
  });
});

test("a JSON-RPC batch of tool calls counts one call per tool call, as the same API calls made one by one", async () => {
  const live = newKey(ctx.deps, "free", "live").headers; // MEHIR_QUOTA_FREE=3 here
  const batch = [callTool("list_chains", {}, 1), callTool("get_prices", { barcode: MILK }, 2), { jsonrpc: "2.0", id: 3, method: "tools/list" }, callTool("find_stores", { city: "חיפה" }, 4)];
  const res = await send(rpc(batch, live));
  expect(res.status).toBe(200);
  expect(res.headers.get("x-quota-remaining")).toBe("0");
  const answers = (await res.json()) as any[];
  expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3, 4]);
  const calls = answers.filter((a) => a.id !== 3);
  for (const answer of calls) expect(answer.result.isError).toBeFalsy();
  expect(calls.map((a) => a.result.structuredContent.meta.quota_remaining).sort()).toEqual([0, 1, 2]);
  const spent = (await (await send(rpc([callTool("list_chains", {}, 5), callTool("list_chains", {}, 6)], live))).json()) as any[];
  expect(spent.map((a) => a.result.structuredContent.error.code)).toEqual(["quota_exceeded", "quota_exceeded"]);
});

describe("request log", () => {
  const lines: Record<string, unknown>[] = [];
  let info: ReturnType<typeof spyOn> | undefined;
  afterEach(() => info?.mockRestore());

  test("a tool call's API request is logged as made via MCP, with the tool and the /mcp request's id", async () => {
    info = spyOn(log, "info").mockImplementation((msg: string, fields: Record<string, unknown> = {}) => void lines.push({ msg, ...fields }));
    const res = await send(rpc(callTool("get_prices", { barcode: MILK }), pro));
    expect(res.status).toBe(200);
    const id = res.headers.get("x-request-id")!;
    await res.text();
    await settle(); // onAfterResponse hooks run after the answer is handed over
    const inner = lines.find((l) => l.msg === "request" && l.parent_request_id === id);
    expect(inner).toMatchObject({ route: "/api/v1/prices", status: 200, via: "mcp", tool: "get_prices", method: "GET" });
    expect(inner!.request_id).not.toBe(id);
    const outer = lines.find((l) => l.msg === "request" && l.request_id === id);
    expect(outer).toMatchObject({ route: "/mcp", method: "POST", status: 200 });
    expect(outer!.via).toBeUndefined();
  });
});
