import { beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { testApp, commitData } from "../helpers/app.ts";
import { Fixture } from "../helpers/fixture.ts";
import { newKey } from "../helpers/keys.ts";
import { settle } from "../helpers/access.ts";
import { createApp } from "../../src/app.ts";
import { FEATURES } from "../../src/modules/index.ts";
import type { FastRoute } from "../../src/http/fast-lane.ts";

/**
 * One suite, both implementations: every route a feature puts on the fast lane
 * (src/http/fast-lane.ts) gets the same shared cases, each sent through the lane (the default
 * app) and through Elysia's lifecycle (`directRoutes: false`), and must get the same answer —
 * status, every stable header, body. A new fast route without a way to ask it below fails here.
 * (Route-specific checks: test/modules/prices-direct.test.ts, batch-direct.test.ts.)
 */

const ctx = testApp({ env: { MEHIR_RATE_FREE: "100000" } });
const lifecycle = createApp(ctx.deps, { directRoutes: false });
const MILK = "7290000066318";
const CHAINS = ["shufersal", "rami-levy", "carrefour"];

beforeAll(() => {
  const f = new Fixture(ctx.db.prices, ctx.chainIds);
  const milk = f.product(MILK, "חלב 3% 1 ליטר", { manufacturer: "תנובה", sizeAmount: 1000, sizeUnit: "ml" });
  CHAINS.forEach((chain, i) => {
    for (const code of ["1", "2"]) f.price(f.store(chain, code, { city: "חיפה", region: "haifa" }), milk, 600 + 10 * i + Number(code));
  });
  commitData(ctx.deps);
});

/** What a case asks: a known product, an unknown one, or a malformed question. */
type Ask = "known" | "unknown" | "malformed";

/** How to ask each fast route, by `METHOD path`: the request's path (with the trailing slash or not) and body. */
const ASK: Record<string, (ask: Ask, slash: boolean) => { path: string; body?: string }> = {
  "GET /api/v1/prices": (ask, slash) => ({
    path: `/api/v1/prices${slash ? "/" : ""}?barcode=${ask === "known" ? MILK : ask === "unknown" ? "7290000000001" : "not-a-barcode!"}`,
  }),
  "POST /api/v1/prices/batch": (ask, slash) => ({
    path: `/api/v1/prices/batch${slash ? "/" : ""}`,
    body: ask === "malformed" ? "{" : JSON.stringify({ items: [{ barcode: ask === "known" ? MILK : "7290000000001" }] }),
  }),
};

/** The shared cases: the caller's key and what it asks. */
const CASES: { name: string; key: "secret" | "none" | "unknown" | "publishable"; ask: Ask; slash: boolean; gzip?: boolean }[] = [
  { name: "a known product, a secret key", key: "secret", ask: "known", slash: true },
  { name: "the same, gzip accepted", key: "secret", ask: "known", slash: true, gzip: true },
  { name: "without the trailing slash", key: "secret", ask: "known", slash: false },
  { name: "an unknown product", key: "secret", ask: "unknown", slash: true },
  { name: "a malformed question (400)", key: "secret", ask: "malformed", slash: true },
  { name: "no key (401)", key: "none", ask: "known", slash: true },
  { name: "an unknown key (401)", key: "unknown", ask: "known", slash: true },
  { name: "a publishable key (403)", key: "publishable", ask: "known", slash: true },
];

/** Headers whose values change from one request to the next (ids, what is left of a bucket or quota). */
const VOLATILE = new Set(["x-request-id", "x-ratelimit-remaining", "x-ratelimit-reset", "x-quota-remaining"]);

async function answerOf(app: { handle(r: Request): Promise<Response> }, request: Request) {
  const res = await app.handle(request);
  const raw = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(res.headers.get("content-encoding") === "gzip" ? gunzipSync(raw) : raw);
  const body = text ? JSON.parse(text) : null;
  if (body?.meta) {
    delete body.meta.request_id;
    delete body.meta.quota_remaining;
  }
  if (body?.request_id) delete body.request_id;
  if (typeof body?.detail === "string") body.detail = body.detail.replace(/req_[0-9a-z]+/g, "req_…");
  const headers = [...res.headers].filter(([name]) => !VOLATILE.has(name)).sort(([a], [b]) => (a < b ? -1 : 1));
  return { status: res.status, headers, body };
}

const fastRoutes: FastRoute[] = FEATURES.flatMap((f) => f.fast?.(ctx.deps) ?? []);

test("the features put routes on the fast lane, and each has a way to ask it here", () => {
  expect(fastRoutes.length).toBeGreaterThan(0);
  for (const route of fastRoutes) expect(Object.keys(ASK)).toContain(`${route.method} ${route.path}`);
});

for (const route of fastRoutes) {
  describe(`${route.method} ${route.path}: the fast lane answers as the lifecycle does`, () => {
    for (const c of CASES) {
      test(c.name, async () => {
        const key =
          c.key === "secret" ? newKey(ctx.deps, "pro", "live").key : c.key === "publishable" ? newKey(ctx.deps, "pro", "publishable").key : c.key === "unknown" ? "sk_live_unknownunknownunknown00" : null;
        const { path, body } = ASK[`${route.method} ${route.path}`]!(c.ask, c.slash);
        const request = () => {
          const headers: Record<string, string> = {};
          if (key) headers["x-api-key"] = key;
          if (c.gzip) headers["accept-encoding"] = "gzip";
          if (body !== undefined) headers["content-type"] = "application/json";
          return new Request(`http://localhost${path}`, { method: route.method, headers, body });
        };
        const lane = await answerOf(ctx.app, request());
        await settle();
        const hooks = await answerOf(lifecycle, request());
        await settle();
        expect(lane).toEqual(hooks);
        if (c.key === "secret" && c.ask === "known") expect(lane.status).toBe(200);
        if (c.key === "none") expect(lane.status).toBe(401);
      });
    }
  });
}
