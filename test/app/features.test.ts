import { afterAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import * as z from "zod";
import { createApp } from "../../src/app.ts";
import { FEATURES, OPERATIONS, ROUTE_DECLARATIONS } from "../../src/modules/index.ts";
import type { Feature } from "../../src/modules/feature.ts";
import { operation } from "../../src/openapi/operation.ts";
import { inDocumentOrder } from "../../src/openapi/document.ts";
import { undeclaredRoutes } from "../../src/http/routes.ts";
import { get, testApp } from "../helpers/app.ts";

/**
 * Each feature registers once (src/modules/feature.ts, src/modules/index.ts): its routes, its
 * operations with their audience, its fast routes. The app refuses to start with a route under
 * /api/ or /mcp that no feature declares: such a route would have no known audience.
 */

const ctx = testApp();
afterAll(() => ctx.close());

/** A feature with one route and, if given, its declaration. */
function featureWith(method: "get" | "post", path: string, declared?: Feature["operations"]): Feature {
  return {
    name: "added",
    operations: declared,
    routes: () => (method === "get" ? new Elysia().get(path, () => ({ data: "secret", meta: {} })) : new Elysia().post(path, () => ({ data: "secret", meta: {} }))),
  };
}

describe("features register once", () => {
  test("the service's own features declare every route they register under /api/ and /mcp", () => {
    expect(undeclaredRoutes(ctx.app.routes, ROUTE_DECLARATIONS)).toEqual([]);
    expect(ctx.app.routes.some((r) => r.method === "OPTIONS" && r.path === "/api/v1/widget/data")).toBe(true);
    // Every feature's operations are in the document's list, once.
    const ids = FEATURES.flatMap((f) => f.operations ?? []).map((op) => op.operationId);
    expect(OPERATIONS.map((op) => op.operationId).sort()).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("a feature adding a route under /api/ without declaring it: the app refuses to start, naming the route", () => {
    expect(() => createApp(ctx.deps, { features: [...FEATURES, featureWith("get", "/api/v1/added")] })).toThrow(
      /refusing to start: GET \/api\/v1\/added is a route under \/api\/ or \/mcp that no feature declares/,
    );
  });

  test("so is one under /mcp", () => {
    expect(() => createApp(ctx.deps, { features: [...FEATURES, featureWith("post", "/mcp/extra")] })).toThrow(/POST \/mcp\/extra/);
  });

  test("declared, the same route starts, and the access layer enforces its audience", async () => {
    const ADDED = operation({
      method: "get",
      path: "/api/v1/added",
      operationId: "getAdded",
      summary: "Added",
      description: "A route a test adds.",
      tags: ["prices"],
      query: z.object({}),
      success: {},
      errors: [],
      audience: "free",
    });
    const app = createApp(ctx.deps, { features: [...FEATURES, featureWith("get", "/api/v1/added", [ADDED])] });
    const res = await get(app, "/api/v1/added/");
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("missing_api_key");
  });

  test("a route outside /api/ and /mcp (a page, a file) needs no declaration", async () => {
    const app = createApp(ctx.deps, { features: [...FEATURES, featureWith("get", "/added-page")] });
    expect((await get(app, "/added-page")).status).toBe(200);
  });
});

describe("the document's order comes from the tags, not from a hand list", () => {
  test("operations are listed by their first tag in the tags' order, then by path", () => {
    expect(OPERATIONS.slice(0, 4).map((op) => op.operationId)).toEqual(["getPrices", "getPricesBatch", "getPriceHistory", "searchProducts"]);
    expect(OPERATIONS.at(-1)?.operationId).toBe("getReadiness");
  });

  test("an operation whose tag the document does not list stops the app at start", () => {
    const untagged = { ...OPERATIONS[0]!, operationId: "untagged", tags: ["nowhere"] };
    expect(() => inDocumentOrder([untagged])).toThrow(/untagged has tag "nowhere"/);
  });
});
