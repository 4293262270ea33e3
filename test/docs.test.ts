import { expect, test } from "bun:test";
import { testApp, get } from "./helpers/app.ts";
import { ERROR_CODES } from "../src/errors/api-error.ts";
import { OPERATIONS } from "../src/modules/index.ts";

const { app } = testApp();

test("the OpenAPI document covers every API route with parameters, responses and a description", async () => {
  const { status, body } = await get(app, "/docs/json");
  expect(status).toBe(200);
  expect(body.openapi).toMatch(/^3\./);
  const paths = Object.keys(body.paths);
  for (const operation of OPERATIONS.filter((op) => op.audience !== "public")) {
    const route = `${operation.method.toUpperCase()} ${operation.path}`;
    const [method, path] = [operation.method.toUpperCase(), operation.path.replace(/(.)\/$/, "$1")];
    const openapiPath = path.replace(/:([a-z_]+)/g, "{$1}");
    const candidates = [openapiPath, openapiPath + "/"];
    const found = candidates.find((p) => paths.includes(p));
    expect(found, route).toBeTruthy();
    const op = body.paths[found!][method.toLowerCase()];
    expect(op.summary).toBeTruthy();
    expect(op.description.length).toBeGreaterThan(40);
    expect(op.responses["200"] ?? op.responses["201"]).toBeTruthy(); // 201: POST /api/v1/alerts creates
  }
  expect(paths).toContain("/api/v1/prices");
  const prices = body.paths["/api/v1/prices"].get;
  const names = prices.parameters.filter((p: any) => p.in === "query").map((p: any) => p.name).sort();
  expect(names).toEqual(["barcode", "chain_id", "city", "cursor", "granularity", "limit", "near", "radius_km", "region"]);
  expect(prices.parameters.find((p: any) => p.name === "barcode").required).toBe(true);
  expect(prices.parameters.find((p: any) => p.name === "granularity").required).toBeFalsy();
  expect(body.paths["/api/v1/basket/compare"].post.requestBody.content["application/json"].example.items.length).toBeGreaterThan(0);
});

test("the document gives no safe-integer bounds (they showed as -9007199254740991 in generated examples)", async () => {
  const res = await app.handle(new Request("http://localhost/docs/json"));
  expect(await res.text()).not.toContain("9007199254740991");
});

test("the docs UI loads its script from this server, never a CDN", async () => {
  const page = await get(app, "/docs");
  expect(page.status).toBe(200);
  expect(page.body).toContain("/docs/assets/scalar.js");
  expect(page.body).not.toContain("cdn.jsdelivr.net");
  const script = await app.handle(new Request("http://localhost/docs/assets/scalar.js"));
  expect(script.status).toBe(200);
  expect(script.headers.get("content-type")).toContain("javascript");
  expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
});

test("the error list documents every code", async () => {
  const page = await get(app, "/docs/errors");
  for (const code of Object.keys(ERROR_CODES)) expect(page.body).toContain(`id="${code}"`);
  // Who may call what, from each route's declared audience.
  expect(page.body).toContain("<code>GET /api/v1/prices/{barcode}/history</code></td><td>a secret key on the Basic plan or higher");
  expect(page.body).toContain("<code>GET /api/v1/exports</code></td><td>a secret key on the Pro plan or higher; live keys only");
});
