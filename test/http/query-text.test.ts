/**
 * Query values are the text they are, in every parameter of every route (parseQuery): commas,
 * semicolons, an encoded plus, brackets and quotes are never split into arrays or read as JSON,
 * as Elysia does with a zod query schema (elysiajs/elysia#1800). A repeated parameter is 400
 * naming it. Each route with a query string is tried with every one of its parameters.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { OPERATIONS } from "../../src/modules/index.ts";
import { parseQuery } from "../../src/http/request/query.ts";
import { testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { importMilk, MILK } from "../helpers/access.ts";

const ctx = testApp({ env: { MEHIR_RATE_PRO: "100000" } });
let pro = "";
let publishable = "";
beforeAll(async () => {
  importMilk(ctx);
  await ctx.deps.search!.rebuild(ctx.db.prices);
  pro = newKey(ctx.deps, "pro", "live").key;
  publishable = newKey(ctx.deps, "pro", "publishable").key;
});

// Values a naive parser splits, decodes as JSON or turns into something else.
const AWKWARD = ["חלב, 3%", "a,b", "x;y", "1+1", "[1]", '"quoted"', "it's", "{}", "a,", ",", "1,2,3"];

const WITH_QUERY = OPERATIONS.filter((op) => op.query);

const enc = encodeURIComponent;
/** Well-formed, of no alert. */
const ALERT_ID = "alrt_" + "a".repeat(24);

describe("parseQuery hands every value to the schema as text", () => {
  for (const op of WITH_QUERY) {
    for (const name of Object.keys(op.query!.shape)) {
      test(`${op.method.toUpperCase()} ${op.path}: ${name}`, () => {
        for (const value of AWKWARD) {
          const request = new Request(`http://localhost${op.path}?${name}=${enc(value)}`);
          // Whatever the schema decides, it is given the string: no issue says "received array" or "object".
          let issue = "";
          try {
            parseQuery(request, op.query!);
          } catch (error) {
            issue = (error as Error).message;
          }
          expect(issue).not.toMatch(/received (array|object|number|boolean)/);
        }
      });
    }
  }

  test("free text keeps commas, semicolons, plus signs, brackets and quotes exactly", () => {
    const search = OPERATIONS.find((op) => op.operationId === "searchProducts")!;
    for (const value of ["חלב, 3%", "במבה; אסם", "1+1", "[1]", '"חלב"', "a%2Cb"]) {
      const parsed = parseQuery(new Request(`http://localhost/api/v1/product-search?q=${enc(value)}`), search.query!) as { q: string };
      expect(parsed.q).toBe(value);
    }
    // `+` in a query string is a space; an encoded plus (%2B) is a plus.
    expect((parseQuery(new Request("http://localhost/api/v1/product-search?q=a+b%2Bc"), search.query!) as { q: string }).q).toBe("a b+c");
  });

  test("a parameter given twice is 400 invalid_parameter naming it; unknown parameters are ignored", () => {
    const prices = OPERATIONS.find((op) => op.operationId === "getPrices")!;
    expect(() => parseQuery(new Request("http://localhost/api/v1/prices?barcode=1&barcode=2"), prices.query!)).toThrow(/given more than once/);
    try {
      parseQuery(new Request("http://localhost/api/v1/prices?barcode=1&city=a&city=b"), prices.query!);
    } catch (error) {
      expect((error as { options: { param: string } }).options.param).toBe("city");
    }
    expect(parseQuery(new Request("http://localhost/api/v1/prices?barcode=1&utm=a&utm=b"), prices.query!)).toMatchObject({ barcode: "1" });
  });
});

describe("every route answers text with commas as text", () => {
  const call = async (path: string, key = pro) => {
    const res = await ctx.app.handle(new Request(`http://localhost${path}`, { headers: { "x-api-key": key } }));
    return { status: res.status, body: (await res.json()) as any };
  };

  test.each([
    ["/api/v1/product-search/?q=" + enc("חלב, 3%"), 200],
    ["/api/v1/product-search/?q=" + enc("[1]"), 200],
    ["/api/v1/product-search/?q=" + enc('"חלב"; 3%'), 200],
    [`/api/v1/prices/?barcode=${MILK}&city=` + enc("תל אביב, יפו"), 200],
    [`/api/v1/prices/?barcode=${MILK}&near=32.0853,34.7818`, 200],
    ["/api/v1/stores/?city=" + enc("תל אביב, יפו"), 200],
    ["/api/v1/stores/?near=32.0853,34.7818&radius_km=5", 200],
    ["/api/v1/chains/shufersal/catalog/?q=" + enc("חלב, 3%"), 200],
    [`/api/v1/promos/feed/?barcode=${MILK}&chain_id=shufersal`, 200],
    ["/api/v1/alerts/?limit=5", 200],
    [`/api/v1/prices/${MILK}/history/?months=6`, 200],
  ])("%s → %d", async (path, status) => {
    const res = await call(path);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
  });

  test("the widget endpoint reads its key and barcode as text", async () => {
    const res = await call(`/api/v1/widget/data/?barcode=${MILK}&key=${publishable}`, "");
    expect(res.status).toBe(200);
  });

  test("values refused by a parameter's own rule are refused naming it, never as an array", async () => {
    const res = await call(`/api/v1/prices/?barcode=${enc("1,2")}`);
    expect(res.status).toBe(400);
    expect(res.body.param).toBe("barcode");
    expect(res.body.detail).not.toMatch(/array/);
  });

  test("a repeated parameter is 400 naming it, on every route with a query string", async () => {
    for (const op of WITH_QUERY) {
      const name = Object.keys(op.query!.shape)[0]!;
      const path = op.path.replace(/:([a-z_]+)/g, (_, p) => (p === "barcode" ? MILK : p === "id" ? (op.path.includes("alerts") ? ALERT_ID : "shufersal") : "x"));
      const key = op.operationId === "getWidgetData" ? publishable : pro;
      const res = await call(`${path}?${name}=1&${name}=2`, key);
      expect(res.status, op.operationId).toBe(400);
      expect(res.body.code).toBe("invalid_parameter");
      expect(res.body.param, op.operationId).toBe(name);
    }
  });
});
