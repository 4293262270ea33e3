import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, commitData } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { refreshChainProducts } from "../../src/db/chain-products.ts";
import { loadSettings } from "../../src/config.ts";
import { OPERATIONS } from "../../src/modules/index.ts";
import { createKey } from "../../src/accounts/keys.ts";
import { BAD_JSON_VALUES, BAD_STRINGS, RAW_QUERY_VALUES } from "../helpers/fuzz/bad-values.ts";
import { tableChecksums } from "../helpers/fuzz/checksum.ts";

/**
 * Bad input, generated from the service's own OpenAPI document (GET /docs/json): every operation,
 * every parameter and every body field gets malformed, oversized, wrong-type, injection-like and
 * Unicode-edge values, one at a time, with valid values elsewhere; plus wrong methods, media
 * types, raw bodies and hostile headers. Every answer must be below 500, every error a
 * problem+json with code/status/request_id, and the stored data unchanged — except the usage
 * counted for the requests made with a live key, which must match what was answered.
 */

interface Parameter {
  in: "query" | "path" | "header" | "cookie";
  name: string;
  required?: boolean;
  schema?: JsonSchema;
}
interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  [key: string]: unknown;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: JsonSchema | null;
  /** The document's example of a valid body (null without a body). */
  example: unknown;
  /** Error statuses the document answers with another media type than problem+json (e.g. /mcp's JSON-RPC errors). */
  otherErrors: Map<string, string[]>;
  /** Statuses the document gives a problem+json body. */
  problemStatuses: Set<string>;
}
interface Sent {
  label: string;
  request: Request;
  /** The URL and body as sent (a detail may quote what the client sent, "undefined" included). */
  sentText: string;
  /** Made with the live key (its answer may count against the quota). */
  live: boolean;
  op?: Operation;
}

// Limits high enough that the fuzz is never rate-limited (rate limiting has its own tests).
const ctx = testApp({
  settings: loadSettings({
    MEHIR_RATE_PRO: "10000000",
    MEHIR_RATE_ANONYMOUS: "10000000",
    MEHIR_WIDGET_RATE: "10000000",
    MEHIR_WIDGET_QUOTA: "10000000",
    MEHIR_QUOTA_PRO: "10000000",
  }),
});
let testKey = "";
let liveKey = "";
let liveAccount = 0;
let publishable = "";
let operations: Operation[] = [];

/** A valid value for each parameter name the API uses (fuzzing changes one at a time). */
const VALID: Record<string, string> = {
  barcode: "7290000066318",
  granularity: "store",
  chain_id: "shufersal",
  city: "חיפה",
  region: "haifa",
  months: "6",
  id: "shufersal",
  limit: "5",
  q: "חלב",
  category: "dairy",
  include_club: "true",
  store_id: "1",
  file: "7290000066318.svg",
};

const VALID_BODY = { items: [{ barcode: "7290000066318", quantity: 2 }, { barcode: "7290000066004", quantity: 1 }], chain_ids: ["shufersal", "rami-levy"], city: "חיפה" };

beforeAll(async () => {
  const f = new Fixture(ctx.db.prices, ctx.chainIds);
  const s1 = f.store("shufersal", "1", { city: "חיפה", region: "haifa" });
  const s2 = f.store("shufersal", "2", { city: "אילת", region: "south" });
  const r1 = f.store("rami-levy", "1", { city: "חיפה", region: "haifa" });
  const milk = f.product("7290000066318", "חלב 3% 1 ליטר", { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml", category: "dairy" });
  const bamba = f.product("7290000066004", "במבה 80 גרם", { manufacturer: "אסם", sizeAmount: 80, sizeUnit: "g" });
  for (const [s, p, price] of [[s1, milk, 690], [s2, milk, 590], [r1, milk, 650], [s1, bamba, 500], [r1, bamba, 450]] as const) f.price(s, p, price);
  f.history(s1, milk, "2026-06-01T08:00:00+03:00", 650);
  f.history(s1, milk, "2026-10-01T08:00:00+03:00", 690);
  f.promotion("shufersal", "P1", { stores: [s1, s2], items: [milk, bamba], minQty: 2, discountedPrice: 1000 });
  f.promotion("rami-levy", "C1", { stores: [r1], items: [milk], minQty: 1, discountedPrice: 500, clubOnly: true });
  refreshChainProducts(ctx.db.prices);
  commitData(ctx.deps);
  await ctx.deps.search?.rebuild(ctx.db.prices);
  testKey = (newKey(ctx.deps, "pro").headers)["x-api-key"]!;
  liveKey = (newKey(ctx.deps, "pro", "live").headers)["x-api-key"]!;
  liveAccount = (ctx.db.accounts.query("SELECT account_id FROM api_keys WHERE kind = 'live' ORDER BY id DESC LIMIT 1").get() as { account_id: number }).account_id;
  publishable = createKey(ctx.db.accounts, { accountId: liveAccount, kind: "publishable" }, new Date()).key;
  VALID.key = publishable;

  const doc = (await (await ctx.app.handle(new Request("http://localhost/docs/json"))).json()) as {
    paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: JsonSchema; example?: unknown }> }; responses?: Record<string, { content?: Record<string, unknown> }> }>>;
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const body = op.requestBody?.content["application/json"]?.schema ?? null;
      const example = op.requestBody?.content["application/json"]?.example ?? null;
      const otherErrors = new Map<string, string[]>();
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const types = Object.keys(response.content ?? {});
        const others = types.filter((type) => type !== "application/problem+json");
        if (Number(status) >= 400 && others.length > 0) otherErrors.set(status, others);
      }
      const problemStatuses = new Set(Object.entries(op.responses ?? {}).filter(([, r]) => Object.keys(r.content ?? {}).includes("application/problem+json")).map(([status]) => status));
      operations.push({ method: method.toUpperCase(), path, parameters: op.parameters ?? [], body, example, otherErrors, problemStatuses });
    }
  }
});

/** URL-encodes like a client would (a lone surrogate becomes U+FFFD: no client can send it as such). */
const enc = (value: string) => encodeURIComponent(value.toWellFormed());

/** A URL as the server reads it, or as sent when it does not decode (`%ff`). */
function decoded(url: string): string {
  try {
    return decodeURIComponent(url.replaceAll("+", " "));
  } catch {
    return url;
  }
}

/** The route pattern of an OpenAPI path (`{barcode}` → `:barcode`), without a trailing slash. */
const routeOf = (path: string) => path.replace(/\{([^}]+)\}/g, ":$1").replace(/(.)\/$/, "$1");

/** The audience the operation of this method and route declares. */
const audienceOf = (method: string, route: string) =>
  OPERATIONS.find((o) => o.method.toUpperCase() === method && routeOf(o.path) === route)?.audience ?? "public";

function build(op: Operation, values: Record<string, string | null>, options: { rawQuery?: string; headers?: Record<string, string>; live?: boolean; body?: BodyInit; contentType?: string } = {}): Sent | null {
  let path = op.path;
  const query: string[] = [];
  for (const p of op.parameters) {
    const value = p.name in values ? values[p.name] : (VALID[p.name] ?? "1");
    if (value === null) {
      if (p.in === "path") path = path.replace(`{${p.name}}`, "");
      continue;
    }
    if (p.in === "path") path = path.replace(`{${p.name}}`, enc(value));
    else if (p.in === "query") query.push(`${enc(p.name)}=${enc(value)}`);
  }
  if (options.rawQuery) query.push(options.rawQuery);
  const url = `http://localhost${path}${query.length ? "?" + query.join("&") : ""}`;
  const audience = audienceOf(op.method, routeOf(op.path));
  const headers: Record<string, string> = {};
  if (audience !== "public" && audience !== "publishable") headers["x-api-key"] = options.live ? liveKey : testKey;
  if (audience === "publishable") headers.origin = "https://shop.example";
  if (options.contentType !== undefined) headers["content-type"] = options.contentType;
  else if (op.body) headers["content-type"] = "application/json";
  Object.assign(headers, options.headers);
  try {
    const request = new Request(url, { method: op.method, headers, body: op.method === "GET" || op.method === "HEAD" ? undefined : (options.body ?? JSON.stringify(VALID_BODY)) });
    // The MCP envelope is never counted (its tool calls are, as the API requests they make).
    const body = op.method === "GET" || op.method === "HEAD" ? "" : typeof options.body === "string" ? options.body : options.body ? "" : JSON.stringify(VALID_BODY);
    return { label: `${op.method} ${url.slice(0, 200)}`, request, sentText: decoded(url) + body, live: Boolean(options.live) && audience !== "public" && audience !== "publishable" && audience !== "mcp", op };
  } catch {
    return null; // a header or URL no client could send
  }
}

/**
 * Whether an error's detail speaks the validator's words instead of the API's (audit I3: 1,160
 * answers said zod's "Invalid input: expected string, received undefined"): zod's phrases, a type
 * named as the validator names it, `undefined` (unless the client sent that word), zod or Elysia.
 */
function validatorWording(detail: string | undefined, sentText: string): boolean {
  if (!detail) return false;
  if (/received|Invalid input|Invalid option|Too (big|small)|Unrecognized key|expected (a |an )?(string|number|int|integer|boolean|object|array|bigint|null|undefined|nan)\b|zod|elysia|~standard|\$Zod|\[object /i.test(detail)) return true;
  return /\bundefined\b/.test(detail) && !sentText.includes("undefined");
}

/** Body mutations generated from the JSON schema: every field path gets every bad value. */
function bodyMutations(schema: JsonSchema): unknown[] {
  const out: unknown[] = [];
  const set = (base: unknown, path: (string | number)[], value: unknown): unknown => {
    if (path.length === 0) return value;
    const [head, ...rest] = path;
    const copy: any = Array.isArray(base) ? [...base] : { ...(base as object) };
    copy[head!] = set(copy[head!], rest, value);
    return copy;
  };
  const walk = (s: JsonSchema | undefined, path: (string | number)[]) => {
    if (!s) return;
    for (const value of [...BAD_JSON_VALUES, ...BAD_STRINGS]) out.push(set(VALID_BODY, path, value));
    if (s.properties) for (const [name, child] of Object.entries(s.properties)) walk(child, [...path, name]);
    if (s.items) walk(s.items, [...path, 0]);
    for (const alt of s.anyOf ?? []) walk(alt, path);
  };
  walk(schema, []);
  // Sizes and shapes.
  const item = VALID_BODY.items[0]!;
  out.push({ items: [] }, { items: Array.from({ length: 101 }, () => item) }, { items: Array.from({ length: 5000 }, () => item) });
  out.push({ ...VALID_BODY, extra: 1 }, { ...VALID_BODY, items: [{ ...item, extra: "x" }] }, JSON.parse('{"items":[{"barcode":"1","quantity":1}],"__proto__":{"admin":true}}'));
  out.push({ items: [{ barcode: "7290000066318", quantity: 99 }, { barcode: "07290000066318", quantity: 99 }] });
  return out;
}

const RAW_BODIES: string[] = [
  "",
  "{",
  "}",
  "null",
  "[]",
  '"items"',
  "1",
  '{"items":}',
  '{"items":[{"barcode":"1","quantity":1}],"items":[]}',
  "\ufeff" + JSON.stringify(VALID_BODY),
  "[".repeat(50_000),
  '{"items":' + "[".repeat(5_000) + "]".repeat(5_000) + "}",
  JSON.stringify({ items: [{ barcode: "1", quantity: 1 }], pad: "x".repeat(70 * 1024) }),
  JSON.stringify({ items: [{ barcode: "1", quantity: 1 }], pad: "x".repeat(2 * 2 ** 20) }),
];

const CONTENT_TYPES = ["", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "application/json; charset=utf-16", "application/vnd.api+json", "APPLICATION/JSON"];

function requestsFor(op: Operation): Sent[] {
  const out: (Sent | null)[] = [];
  let n = 0;
  const live = () => ++n % 7 === 0;
  out.push(build(op, {}, { live: true }));
  for (const p of op.parameters) {
    if (p.in !== "query" && p.in !== "path") continue;
    for (const bad of BAD_STRINGS) out.push(build(op, { [p.name]: bad }, { live: live() }));
    // The same after a valid value (suffix injection: `7290000066318' OR 1=1`).
    for (const bad of BAD_STRINGS) out.push(build(op, { [p.name]: (VALID[p.name] ?? "1") + bad }, { live: live() }));
    if (p.in === "path") {
      for (const raw of ["..", ".", "%2F", "a%2Fb", "%00", "%ff", "%"]) {
        const path = op.path.replace(`{${p.name}}`, raw);
        out.push(build({ ...op, path, parameters: op.parameters.filter((q) => q.name !== p.name) }, {}));
      }
      continue;
    }
    out.push(build(op, { [p.name]: null }, { live: live() }));
    for (const raw of RAW_QUERY_VALUES) out.push(build(op, { [p.name]: null }, { rawQuery: `${p.name}=${raw}`, live: live() }));
    out.push(build(op, {}, { rawQuery: `${p.name}=${enc(BAD_STRINGS[18]!)}` })); // repeated key
    out.push(build(op, { [p.name]: null }, { rawQuery: `${p.name}[]=1&${p.name}[]=2` }));
    out.push(build(op, { [p.name]: null }, { rawQuery: `${p.name}[a]=1` }));
  }
  for (const raw of ["zzz=1", "__proto__[x]=1", "constructor[prototype][x]=1", `${"k".repeat(5000)}=v`, "a=" + "&".repeat(2000)]) out.push(build(op, {}, { rawQuery: raw }));
  if (op.body) {
    for (const body of bodyMutations(op.body)) out.push(build(op, {}, { body: JSON.stringify(body), live: live() }));
    for (const body of RAW_BODIES) out.push(build(op, {}, { body, live: live() }));
    for (const type of CONTENT_TYPES) out.push(build(op, {}, { contentType: type }));
    out.push(build(op, {}, { body: new Uint8Array([0x7b, 0xff, 0xfe, 0x00, 0x7d]) }));
  }
  // Wrong methods on the path.
  for (const method of ["PUT", "DELETE", "PATCH", op.method === "GET" ? "POST" : "GET"]) out.push(build({ ...op, method }, {}, { body: "{}" }));
  return out.filter((s): s is Sent => s !== null);
}

/** Hostile headers on one secret and one publishable operation. */
function headerRequests(): Sent[] {
  const prices = operations.find((o) => o.path === "/api/v1/prices")!;
  const widget = operations.find((o) => o.path === "/api/v1/widget/data");
  const out: (Sent | null)[] = [];
  for (const bad of BAD_STRINGS) {
    out.push(build(prices, {}, { headers: { "x-api-key": bad } }));
    out.push(build(prices, {}, { headers: { "x-api-key": `sk_live_${bad}` } }));
    out.push(build(prices, {}, { headers: { "x-request-id": bad } }));
    out.push(build(prices, {}, { headers: { "if-none-match": bad } }));
    out.push(build(prices, {}, { headers: { "x-forwarded-for": bad } }));
    if (widget) out.push(build(widget, {}, { headers: { origin: bad } }));
    if (widget) out.push(build(widget, { key: bad }, {}));
  }
  out.push(build(prices, {}, { headers: { "x-api-key": testKey + "x" } }));
  out.push(build(prices, {}, { headers: { "x-api-key": publishable } }));
  if (widget) out.push(build(widget, { key: testKey }, {}));
  return out.filter((s): s is Sent => s !== null);
}

function usageOf(account: number): number {
  ctx.deps.access?.flush();
  return (ctx.db.accounts.query("SELECT coalesce(sum(count), 0) AS n FROM usage_daily WHERE subject = ?").get(`account:${account}`) as { n: number }).n;
}

describe("fuzz from the OpenAPI document", () => {
  test(
    "thousands of hostile requests: no 5xx, problem+json on every error, stored data unchanged",
    async () => {
      expect(operations.length).toBeGreaterThanOrEqual(10);
      const prices = () => tableChecksums(ctx.db.prices);
      const accounts = () => tableChecksums(ctx.db.accounts, ["usage_daily"]);
      ctx.deps.access?.flush();
      const pricesBefore = prices();
      const accountsBefore = accounts();
      const usageBefore = usageOf(liveAccount);

      const sent = [...operations.flatMap(requestsFor), ...headerRequests()];
      const failures: string[] = [];
      let counted = 0;
      const statuses = new Map<number, number>();
      for (const { label, request, live, op, sentText } of sent) {
        const res = await ctx.app.handle(request);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const text = await res.text();
        // A path no operation matches (a path parameter fuzzed empty: /api/v1/exports/1/) is 404
        // not_found and, like every path outside the API's operations, never counted.
        const unknownPath = res.status === 404 && text.includes('"code":"not_found"');
        // 414: the URL is refused before the key is even read (the app's own limit), never counted.
        if (live && !unknownPath && res.status !== 304 && res.status !== 414 && res.status !== 429 && res.status < 500 && res.status !== 401 && res.status !== 403) counted++;
        if (res.status >= 500) {
          failures.push(`${res.status} ${label}: ${text.slice(0, 200)}`);
          continue;
        }
        // An error the document gives another media type (the JSON-RPC errors of /mcp): that media
        // type, or problem+json where the document gives both for the status (MCP's 400).
        const other = op?.otherErrors.get(String(res.status));
        if (other) {
          const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
          if (other.includes(type)) continue;
          if (type !== "application/problem+json" || !op!.problemStatuses.has(String(res.status))) {
            failures.push(`${res.status} not ${other.join(" or ")} (${type}) ${label}: ${text.slice(0, 200)}`);
            continue;
          }
        }
        if (res.status >= 400) {
          const type = res.headers.get("content-type") ?? "";
          let body: any = null;
          try {
            body = JSON.parse(text);
          } catch {
            /* reported below */
          }
          if (!type.startsWith("application/problem+json") || !body || typeof body.code !== "string" || body.status !== res.status || typeof body.request_id !== "string" || !body.request_id) {
            failures.push(`${res.status} not problem+json (${type}) ${label}: ${text.slice(0, 200)}`);
          } else if (/sqlite|SELECT |at .*\.ts:\d+|\/work\//i.test(body.detail ?? "")) {
            failures.push(`${res.status} leaks internals ${label}: ${body.detail}`);
          } else if (validatorWording(body.detail, sentText)) {
            failures.push(`${res.status} speaks the validator's words ${label}: ${body.detail}`);
          }
        }
      }
      if (process.env.FUZZ_VERBOSE) console.error(sent.length, [...statuses].sort());
      expect(failures.slice(0, 20)).toEqual([]);
      expect(sent.length).toBeGreaterThan(3000);
      // Mostly refusals, but the valid requests succeeded too.
      expect(statuses.get(200) ?? 0).toBeGreaterThan(10);
      expect(statuses.get(400) ?? 0).toBeGreaterThan(500);

      expect(prices()).toEqual(pricesBefore);
      expect(accounts()).toEqual(accountsBefore);
      expect(usageOf(liveAccount) - usageBefore).toBe(counted);
      expect(counted).toBeGreaterThan(0);
    },
    { timeout: 60_000 },
  );
});

/** Every member path of a JSON value (`items`, `items[0]`, `items[0].barcode`, …), with its path parts. */
function memberPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(value) && value.length > 0) out.push([...path, 0], ...memberPaths(value[0], [...path, 0]));
  else if (value && typeof value === "object") {
    for (const [name, child] of Object.entries(value)) out.push([...path, name], ...memberPaths(child, [...path, name]));
  }
  return out;
}

/** `value` with the member at `path` set to `to` (removed when `to` is `REMOVE`). */
const REMOVE = Symbol("remove");
function withMember(value: unknown, path: (string | number)[], to: unknown): unknown {
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  if (rest.length > 0) copy[head!] = withMember(copy[head!], rest, to);
  else if (to === REMOVE) Array.isArray(copy) ? copy.splice(head as number, 1) : delete copy[head!];
  else copy[head!] = to;
  return copy;
}

const paramName = (path: (string | number)[]) => path.reduce<string>((out, part) => (typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${part}` : part), "");

describe("refused input is told in the API's words (audit I3)", () => {
  test(
    "each documented parameter and body member missing or of the wrong type: a sentence naming it and what it must be, never the validator's wording",
    async () => {
      const sent: { label: string; request: Request; sentText: string; required?: string }[] = [];
      for (const op of operations) {
        const live = audienceOf(op.method, routeOf(op.path)) !== "public";
        for (const p of op.parameters) {
          if (p.in !== "query" && p.in !== "path") continue;
          if (p.in === "query") {
            const missing = build(op, { [p.name]: null }, { live });
            if (missing) sent.push({ ...missing, required: p.required ? p.name : undefined });
          }
          for (const wrong of ["abc!", "", "1.5", "-1", "{}", "x".repeat(200)]) {
            const answer = build(op, { [p.name]: wrong }, { live });
            if (answer) sent.push(answer);
          }
        }
        if (op.example && typeof op.example === "object") {
          // A webhook URL is resolved once its body is valid: an IP literal, so nothing leaves loopback (refused as loopback).
          const example = "url" in op.example ? { ...op.example, url: "https://127.0.0.1/hook" } : op.example;
          for (const path of memberPaths(example)) {
            const missing = build(op, {}, { live, body: JSON.stringify(withMember(example, path, REMOVE)) });
            if (missing) sent.push(missing);
            for (const wrong of [null, 7, "x", true, [], {}]) {
              const answer = build(op, {}, { live, body: JSON.stringify(withMember(example, path, wrong)) });
              if (answer) sent.push(answer);
            }
          }
        }
      }
      const failures: string[] = [];
      let told = 0;
      let required = 0;
      for (const { label, request, sentText, required: requiredParam } of sent) {
        const res = await ctx.app.handle(request);
        const text = await res.text();
        if (res.status >= 500) failures.push(`${res.status} ${label}: ${text.slice(0, 200)}`);
        if (!(res.headers.get("content-type") ?? "").startsWith("application/problem+json")) continue;
        const body = JSON.parse(text) as { code: string; param?: string; detail: string };
        if (validatorWording(body.detail, sentText)) failures.push(`validator's words ${label}: ${body.detail}`);
        if (body.code !== "invalid_parameter") continue;
        told++;
        // One sentence: a validator's refusal has the parameter or member (or the whole body, query or path)
        // as its subject, then what it must be; a service's names what it is about ("Unknown category …").
        const word = (body.param ?? "").split(/[_.[]/)[0]!.toLowerCase();
        const subject = /^(The request body|The query string|The request's path) /.test(body.detail) || body.detail.includes(`\`${body.param}\``) || (word !== "" && body.detail.toLowerCase().includes(word));
        if (!subject || !body.detail.endsWith(".")) failures.push(`not a sentence naming ${body.param} ${label}: ${body.detail}`);
        if (requiredParam && body.param === requiredParam) {
          required++;
          if (body.detail !== `\`${requiredParam}\` is required.`) failures.push(`missing ${requiredParam} ${label}: ${body.detail}`);
        }
      }
      expect(failures.slice(0, 20)).toEqual([]);
      expect(told).toBeGreaterThan(200);
      // prices and widget `barcode`, search `q`: each told missing.
      expect(required).toBeGreaterThanOrEqual(3);
      // Body members removed: told missing as the parameter named.
      const missingUrl = await ctx.app.handle(build(operations.find((o) => o.path === "/api/v1/alerts" && o.method === "POST")!, {}, { live: true, body: JSON.stringify({ barcode: "7290000066318", condition: { promotion: true } }) })!.request);
      expect(await missingUrl.json()).toMatchObject({ code: "invalid_parameter", param: "url", detail: "`url` is required." });
      const zeroQuantity = await ctx.app.handle(build(operations.find((o) => o.path === "/api/v1/basket/compare")!, {}, { body: JSON.stringify({ items: [{ barcode: "7290000066318", quantity: 0 }] }) })!.request);
      expect(await zeroQuantity.json()).toMatchObject({ code: "invalid_parameter", param: "items[0].quantity", detail: "`items[0].quantity` must be at least 1." });
    },
    { timeout: 60_000 },
  );
});
