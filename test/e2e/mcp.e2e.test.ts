/**
 * The "done when" of the MCP endpoint: the SDK's own client, over HTTP against `mehir serve` on the
 * embedded demo data, lists the tools and gets from each the answer the REST API gives for the
 * same request (and what a person would expect of it); bad input, a missing key, a Free key's plan
 * gates and quota counting, over the wire.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { openDataDir } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { ensureDemoData } from "../../src/demo/first-start.ts";
import { loadRegistry } from "../../src/registry.ts";
import { withLogs } from "../helpers/serve-process.ts";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const dataDir = mkdtempSync(join(tmpdir(), "mehir-mcp-e2e-"));
const ENV = { ...process.env, NODE_ENV: "production", MEHIR_LOG_LEVEL: "info", MEHIR_RATE_FREE: "6000", MEHIR_RATE_PRO: "6000", MEHIR_QUOTA_FREE: "4", MEHIR_IMPORT_PRIORITY: "normal" };
let child: Subprocess<"ignore", "pipe", "pipe"> | null = null;
/** The server's output, shown only when something fails. */
let output = "";
let url = "";
let proKey = "";
let freeLiveKey = "";
const clients: Client[] = [];
/** Haifa's centre. */
const HAIFA = { lat: 32.794, lon: 34.9896 };

/** `mehir …` on the test's data dir; the last line of its output. */
function cli(...args: string[]): string {
  const run = Bun.spawnSync([process.execPath, MAIN, ...args, "--data-dir", dataDir], { env: ENV });
  if (run.exitCode !== 0) throw new Error(`mehir ${args.join(" ")}: exit ${run.exitCode}: ${run.stderr.toString()}`);
  return run.stdout.toString().trim().split("\n").at(-1)!;
}

async function serve(): Promise<string> {
  child = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe", env: ENV });
  void new Response(child.stderr).text().then((text) => (output += text));
  const reader = child.stdout.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited before listening: ${output}`);
    output += new TextDecoder().decode(value);
    const match = /"msg":"listening","url":"([^"]+)"/.exec(output);
    if (match) {
      reader.releaseLock();
      void child.stdout.pipeTo(new WritableStream({ write: (chunk) => void (output = (output + new TextDecoder().decode(chunk)).slice(-20_000)) }));
      return match[1]!;
    }
  }
}

/** Resolves once /readyz answers 200 (the search index is built at start); the hook's timeout bounds the wait. */
async function ready(): Promise<void> {
  for (;;) {
    const res = await fetch(`${url}/readyz`).catch(() => null);
    await res?.body?.cancel();
    if (res?.status === 200) return;
    await Bun.sleep(50);
  }
}

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "mehir-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

beforeAll(withLogs(() => output, async () => {
  // The embedded demo, generated as a first start does but at 30 % of its size and in this
  // process (every chain, fewer stores): what is tested is MCP over HTTP, not the first start
  // (e2e/first-start.e2e.test.ts) nor the demo's volume.
  const db = openDataDir(dataDir);
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  await ensureDemoData({ db: db.prices, registry, dataDir, now: new Date(), scale: 0.3, importer: "inline" });
  db.prices.close();
  db.accounts.close();
  cli("accounts", "create", "--email", "mcp-pro@example.com", "--plan", "pro");
  proKey = cli("keys", "create", "--email", "mcp-pro@example.com", "--kind", "test");
  cli("accounts", "create", "--email", "mcp-free@example.com", "--plan", "free");
  freeLiveKey = cli("keys", "create", "--email", "mcp-free@example.com", "--kind", "live");
  url = await serve();
  await ready();
}), 600_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  if (child) {
    child.kill("SIGTERM");
    await child.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

/** The REST API's answer to the same request (same key), without its request id. */
async function rest(path: string, init: RequestInit = {}) {
  const res = await fetch(url + path, { ...init, headers: { "x-api-key": proKey, ...(init.headers as Record<string, string>) } });
  expect(res.status).toBe(200);
  return withoutRequestId(await res.json());
}

function withoutRequestId(body: any) {
  const { request_id, ...meta } = body.meta;
  return { ...body, meta };
}

describe("a Pro key over HTTP", () => {
  let client: Client;
  /** The first search results' identifiers: the barcode, with the chain_id when not null (the API's rule). */
  let products: { barcode: string; chain_id?: string }[] = [];
  const query = (p: { barcode: string; chain_id?: string }) => `barcode=${p.barcode}${p.chain_id ? `&chain_id=${p.chain_id}` : ""}`;

  async function tool(name: string, args: Record<string, unknown>) {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    const text = (result.content as { type: string; text: string }[])[0]!.text;
    return { text, structured: withoutRequestId(result.structuredContent) };
  }

  beforeAll(async () => {
    client = await connect({ "x-api-key": proKey });
  });

  test("initialize and tools/list", async () => {
    expect(client.getServerVersion()?.name).toBe("mehir");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["chain_price_index", "compare_basket", "find_stores", "get_prices", "list_chains", "plan_basket", "price_history", "promotions", "search_products"]);
  });

  test("search_products: milk, in Hebrew", async () => {
    const { text, structured } = await tool("search_products", { query: "חלב", limit: 5 });
    expect(structured).toEqual(await rest(`/api/v1/product-search/?q=${encodeURIComponent("חלב")}&limit=5`));
    expect(structured.data.length).toBe(5);
    expect(structured.data[0].name).toContain("חלב");
    expect(text).toContain(structured.data[0].name);
    products = structured.data.map((p: any) => (p.chain_id ? { barcode: p.barcode, chain_id: p.chain_id } : { barcode: p.barcode }));
  }, 30_000);

  test("get_prices: every chain selling it, cheapest first", async () => {
    const { text, structured } = await tool("get_prices", products[0]!);
    expect(structured).toEqual(await rest(`/api/v1/prices/?${query(products[0]!)}`));
    const prices = structured.data.prices.map((p: any) => Number(p.effective_price_ils));
    expect(prices.length).toBeGreaterThan(1);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(text.split("\n")[1]).toStartWith(`- ${structured.data.prices[0].chain_name}: ₪${structured.data.prices[0].effective_price_ils}`);
  }, 30_000);

  test("get_prices in Haifa, per store", async () => {
    const { structured } = await tool("get_prices", { ...products[0]!, city: "חיפה", granularity: "store" });
    expect(structured).toEqual(await rest(`/api/v1/prices/?${query(products[0]!)}&city=${encodeURIComponent("חיפה")}&granularity=store`));
    expect(structured.data.prices.length).toBeGreaterThan(0);
    for (const entry of structured.data.prices) expect(entry.store.city).toBe("חיפה");
  }, 30_000);

  test("compare_basket", async () => {
    const items = products.slice(0, 3).map((p, i) => ({ ...p, quantity: i + 1 }));
    const { text, structured } = await tool("compare_basket", { items });
    expect(structured).toEqual(await rest("/api/v1/basket/compare/", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ items }) }));
    const cheapest = structured.data.stores.find((c: any) => c.chain_id === structured.data.cheapest_store);
    expect(text.split("\n")[0]).toStartWith(`Cheapest basket: ${cheapest.chain_name} ₪${cheapest.total_ils}`);
  }, 30_000);

  test("find_stores near a point in Haifa: the stores endpoint's answer, nearest first", async () => {
    const { text, structured } = await tool("find_stores", { near: HAIFA, radius_km: 5, limit: 50 });
    expect(structured).toEqual(await rest(`/api/v1/stores/?near=${HAIFA.lat},${HAIFA.lon}&radius_km=5&limit=50`));
    const distances = structured.data.map((s: any) => s.distance_km);
    expect(distances.length).toBeGreaterThan(1);
    expect(distances).toEqual([...distances].sort((a: number, b: number) => a - b));
    for (const d of distances) expect(d).toBeLessThanOrEqual(5);
    // The demo's stores mostly have no published coordinates: placed at their city's centre, and the text says so.
    expect(structured.data.some((s: any) => s.coordinates.approximate)).toBe(true);
    expect(text).toContain("location approximate (city centre)");
    expect(text.split("\n")[0]).toStartWith(`${structured.data.length} stores within 5 km of ${HAIFA.lat},${HAIFA.lon}, nearest first:`);
  }, 30_000);

  test("get_prices near a point: per store, cheapest first, each within the radius", async () => {
    const { structured } = await tool("get_prices", { ...products[0]!, near: HAIFA, radius_km: 5 });
    expect(structured).toEqual(await rest(`/api/v1/prices/?${query(products[0]!)}&near=${HAIFA.lat},${HAIFA.lon}&radius_km=5&granularity=store`));
    expect(structured.data.prices.length).toBeGreaterThan(0);
    for (const entry of structured.data.prices) expect(entry.distance_km).toBeLessThanOrEqual(5);
  }, 30_000);

  test("compare_basket near a point: each chain's cheapest store within the radius", async () => {
    const items = products.slice(0, 3).map((p) => ({ ...p, quantity: 1 }));
    const { text, structured } = await tool("compare_basket", { items, near: HAIFA, radius_km: 5 });
    const body = JSON.stringify({ items, near: `${HAIFA.lat},${HAIFA.lon}`, radius_km: 5 });
    expect(structured).toEqual(await rest("/api/v1/basket/compare/", { method: "POST", headers: { "content-type": "application/json" }, body }));
    expect(structured.data.stores.length).toBeGreaterThan(0);
    for (const chain of structured.data.stores) expect(chain.store.distance_km).toBeLessThanOrEqual(5);
    expect(text.split("\n")[0]).toStartWith(`Cheapest basket within 5 km of ${HAIFA.lat},${HAIFA.lon}: `);
  }, 30_000);

  test("price_history", async () => {
    const { structured } = await tool("price_history", { ...products[0]!, months: 6 });
    const chain = products[0]!.chain_id ? `&chain_id=${products[0]!.chain_id}` : "";
    expect(structured).toEqual(await rest(`/api/v1/prices/${products[0]!.barcode}/history/?months=6${chain}`));
    expect(structured.data.history.length).toBeGreaterThan(0);
  }, 30_000);

  test("list_chains", async () => {
    const { text, structured } = await tool("list_chains", {});
    expect(structured).toEqual(await rest("/api/v1/chains/"));
    expect(structured.data.filter((c: any) => c.status === "ok").length).toBeGreaterThanOrEqual(28);
    expect(text).toContain("שופרסל (Shufersal, chain_id shufersal)");
  }, 30_000);

  test("promotions", async () => {
    const { text, structured } = await tool("promotions", { limit: 5 });
    expect(structured).toEqual(await rest("/api/v1/promos/feed/?include_club=true&limit=5"));
    expect(structured.data.length).toBe(5);
    expect(text).toContain(structured.data[0].chain_name);
  }, 30_000);

  test("an invalid argument: a JSON-RPC error, not a tool result or a 5xx", async () => {
    expect(client.callTool({ name: "price_history", arguments: { ...products[0]!, months: 25 } })).rejects.toMatchObject({
      code: -32602,
      data: { param: "arguments.months" },
    });
    expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
  }, 30_000);
});

describe("keys, plans and quota over HTTP", () => {
  test("no key: 401 problem+json before MCP", async () => {
    const res = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toStartWith("application/problem+json");
    expect((await res.json()).code).toBe("missing_api_key");
    expect(connect({})).rejects.toThrow(/401/);
  }, 30_000);

  test("a body over 64 KiB: 413 problem+json; an unknown tool: a JSON-RPC error over a 200", async () => {
    const headers = { "x-api-key": proKey, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_products", arguments: { query: "x".repeat(70_000) } } });
    const oversize = await fetch(`${url}/mcp`, { method: "POST", headers, body: big });
    expect(oversize.status).toBe(413);
    expect(oversize.headers.get("content-type")).toStartWith("application/problem+json");
    expect((await oversize.json()).code).toBe("payload_too_large");
    const unknown = await fetch(`${url}/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "no_such_tool", arguments: {} } }) });
    expect(unknown.status).toBe(200);
    expect((await unknown.json()).error).toMatchObject({ code: -32602, data: { param: "name" } });
  }, 30_000);

  test("a Free live key: Free tools count one call each, a Pro tool is plan_upgrade_required (uncounted), then the quota runs out", async () => {
    const client = await connect({ authorization: `Bearer ${freeLiveKey}` }); // MEHIR_QUOTA_FREE=4
    const first = await client.callTool({ name: "list_chains", arguments: {} });
    expect((first.structuredContent as any).meta.quota_remaining).toBe(3);
    const gated = await client.callTool({ name: "compare_basket", arguments: { items: [{ barcode: "7290000066318" }] } });
    expect(gated.isError).toBe(true);
    expect((gated.structuredContent as any).error.code).toBe("plan_upgrade_required");
    const left: number[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await client.callTool({ name: "search_products", arguments: { query: "במבה" } });
      left.push((result.structuredContent as any).meta.quota_remaining);
    }
    expect(left).toEqual([2, 1, 0]);
    const spent = await client.callTool({ name: "list_chains", arguments: {} });
    expect((spent.structuredContent as any).error.code).toBe("quota_exceeded");
  }, 60_000);
});
