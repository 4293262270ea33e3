/**
 * Files carry the chains' time, never the import's, and a chain's full Stores list is its whole
 * list (issue 19 parts 6–7): files of the real shapes imported with importPaths, read back
 * through the API.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importPaths } from "../../src/ingest/run/import.ts";
import { loadRegistry } from "../../src/registry.ts";
import { FIXED_NOW, get, testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { binaPriceXml, cerberusStoresXml, matrixStoresXml, writeFiles } from "../helpers/real-shape.ts";

const RAMI = "7290058140886";
const VICTORY = "7290696200003";
const VICTORY_2 = "7290058103393";
const MILK = "7290111111112";

const root = mkdtempSync(join(tmpdir(), "mehir-stores-lifecycle-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function setup() {
  const ctx = testApp();
  let dirs = 0;
  const run = async (files: Record<string, string>) => {
    const paths = writeFiles(join(root, `${Math.random().toString(36).slice(2)}-${++dirs}`), files);
    const report = await importPaths({ db: ctx.db.prices, registry: loadRegistry(), paths, origin: "cli", source: "live", now: () => FIXED_NOW, parseWorkers: 0 });
    ctx.deps.data.refresh();
    return report;
  };
  return { ctx, run };
}

const stores = (...codes: string[]) => codes.map((code) => ({ code, city: "ירושלים" }));
const priceFull = (store: string, stamp: string, price = "6.90") => ({
  [`PriceFull${RAMI}-${store.padStart(3, "0")}-${stamp}.xml`]: binaPriceXml(RAMI, store, [{ code: MILK, price }]),
});

describe("a file's time is the chains' time (part 6)", () => {
  test("a Stores list without a time in its name takes its header's time", async () => {
    const { run } = setup();
    const report = await run({ [`Stores${RAMI}.xml`]: cerberusStoresXml(RAMI, stores("1", "2"), { date: "2026-11-01", time: "20:05:00" }) });
    expect(report.files[0]).toMatchObject({ status: "ok", type: "stores", fileTime: "2026-11-01T20:05:00+02:00" });
    expect(report.files[0]!.warnings).toContain("no time in the file name; used the time in the file's header");
  });

  test("a Matrix list takes its root's Date/Time", async () => {
    const { run } = setup();
    const report = await run({ "victory-stores.xml": matrixStoresXml([{ code: "1", chainCode: VICTORY }, { code: "87", chainCode: VICTORY_2 }], "02/11/26", "06:00:01") });
    expect(report.files[0]).toMatchObject({ status: "ok", chainSlug: "victory", fileTime: "2026-11-02T06:00:01+02:00", rows: 2 });
  });

  test("a chain whose newest data is old is stale, although imported today", async () => {
    const { ctx, run } = setup();
    await run({ ...priceFull("1", "202611010300") });
    const key = newKey(ctx.deps, "pro", "live").headers;
    const chains = (await get(ctx.app, "/api/v1/chains/", key)).body.data as any[];
    expect(chains.find((c) => c.chain_id === "rami-levy")).toMatchObject({ status: "stale", last_updated_at: "2026-11-01T03:00:00+02:00" });
  });

  test("an older Stores list imported after a newer one never overwrites it, and closes nothing", async () => {
    const { ctx, run } = setup();
    await run({ [`Stores${RAMI}-202611200200.xml`]: cerberusStoresXml(RAMI, [{ code: "1", name: "תלפיות החדש" }, { code: "2" }], null) });
    const older = await run({ [`Stores${RAMI}-202611100200.xml`]: cerberusStoresXml(RAMI, [{ code: "1", name: "תלפיות" }], null) });
    expect(older.files[0]!.counts).toMatchObject({ older: 1, closed: 0 });
    expect(ctx.db.prices.query("SELECT store_code, name, closed_at FROM stores ORDER BY store_code").all()).toEqual([
      { store_code: "1", name: "תלפיות החדש", closed_at: null },
      { store_code: "2", name: "סניף 2", closed_at: null },
    ]);
  });
});

describe("stores close and reopen (part 7)", () => {
  test("a store missing from a newer full list is closed: not counted, not priced, kept for history; it reopens when listed again", async () => {
    const { ctx, run } = setup();
    const key = newKey(ctx.deps, "pro", "live").headers;
    await run({
      [`Stores${RAMI}-202611200200.xml`]: cerberusStoresXml(RAMI, stores("1", "2", "3"), null),
      ...priceFull("1", "202611200300"),
      ...priceFull("2", "202611200300"),
      ...priceFull("3", "202611200300", "5.90"),
    });
    const closing = await run({ [`Stores${RAMI}-202611210200.xml`]: cerberusStoresXml(RAMI, stores("1", "2"), null) });
    expect(closing.files[0]!.counts).toMatchObject({ rows: 2, closed: 1 });
    expect(closing.files[0]!.warnings).toContain("1 stores missing from this full list closed");

    const chain = async () => ((await get(ctx.app, "/api/v1/chains/", key)).body.data as any[]).find((c) => c.chain_id === "rami-levy");
    expect((await chain()).store_count).toBe(2);
    const priced = async () => ((await get(ctx.app, `/api/v1/prices/?barcode=${MILK}&granularity=store`, key)).body.data.prices as any[]).map((p) => p.store.store_id).sort();
    expect(await priced()).toEqual(["1", "2"]);
    const byChain = (await get(ctx.app, `/api/v1/prices/?barcode=${MILK}`, key)).body.data.prices[0];
    expect(byChain).toMatchObject({ store_count: 2, min_price_ils: "6.90" });
    const inCity = await ctx.app.handle(
      new Request("http://localhost/api/v1/basket/compare/", {
        method: "POST",
        headers: { ...key, "Content-Type": "application/json" },
        body: JSON.stringify({ items: [{ barcode: MILK, quantity: 1 }], city: "ירושלים" }),
      }),
    );
    const compared = (await inCity.json()) as any;
    // The city's cheapest Rami Levy store would be the closed store 3 (5.90): it is not priced.
    expect(compared.data.stores.find((c: any) => c.chain_id === "rami-levy")).toMatchObject({ total_ils: "6.90" });
    expect(compared.data.stores.find((c: any) => c.chain_id === "rami-levy").store.store_id).not.toBe("3");
    // History kept: the store's price, then the end of it at the list's time.
    expect(
      ctx.db.prices
        .query("SELECT ph.valid_from, ph.price FROM price_history ph JOIN stores s ON s.id = ph.store_id WHERE s.store_code = '3' ORDER BY ph.valid_from")
        .all(),
    ).toEqual([
      { valid_from: "2026-11-20T03:00:00+02:00", price: 590 },
      { valid_from: "2026-11-21T02:00:00+02:00", price: null },
    ]);

    // A price file of the closed store is not used.
    const late = await run(priceFull("3", "202611210300", "5.50"));
    expect(late.files[0]).toMatchObject({ status: "skipped", reason: "store 3 is closed: missing from the chain's Stores list of 2026-11-21T02:00:00+02:00" });
    expect(await priced()).toEqual(["1", "2"]);

    const reopening = await run({ [`Stores${RAMI}-202611220200.xml`]: cerberusStoresXml(RAMI, stores("1", "2", "3"), null), ...priceFull("3", "202611220300", "5.50") });
    expect(reopening.files[0]!.counts).toMatchObject({ reopened: 1, closed: 0 });
    expect((await chain()).store_count).toBe(3);
    expect(await priced()).toEqual(["1", "2", "3"]);
  }, 120_000);

  test("a list naming fewer than half of the chain's open stores is partial: it closes nothing", async () => {
    const { ctx, run } = setup();
    await run({ [`Stores${RAMI}-202611200200.xml`]: cerberusStoresXml(RAMI, stores("1", "2", "3"), null) });
    const online = await run({ [`Stores${RAMI}-202611210200.xml`]: cerberusStoresXml(RAMI, stores("1"), null) });
    expect(online.files[0]!.counts).toMatchObject({ closed: 0 });
    expect(online.files[0]!.warnings).toContain("lists 1 of the chain's 3 open stores: taken as a partial list, no store closed");
    expect(ctx.db.prices.query("SELECT count(*) AS n FROM stores WHERE closed_at IS NULL").get()).toEqual({ n: 3 });
  });

  test("a list closes only stores of the sub-chains it lists (an online store published in a list of its own)", async () => {
    const { ctx, run } = setup();
    await run({ [`Stores${RAMI}-202611200100.xml`]: cerberusStoresXml(RAMI, stores("99"), null, "2") });
    const main = await run({ [`Stores${RAMI}-202611200200.xml`]: cerberusStoresXml(RAMI, stores("1", "2"), null, "1") });
    expect(main.files[0]!.counts).toMatchObject({ closed: 0 });
    expect(ctx.db.prices.query("SELECT store_code, sub_chain_code, closed_at FROM stores ORDER BY store_code").all()).toEqual([
      { store_code: "1", sub_chain_code: "1", closed_at: null },
      { store_code: "2", sub_chain_code: "1", closed_at: null },
      { store_code: "99", sub_chain_code: "2", closed_at: null },
    ]);
  });

  test("a truncated list closes nothing", async () => {
    const { ctx, run } = setup();
    await run({ [`Stores${RAMI}-202611200200.xml`]: cerberusStoresXml(RAMI, stores("1", "2", "3"), null) });
    const cut = cerberusStoresXml(RAMI, stores("1", "2", "3"), null);
    const report = await run({ [`Stores${RAMI}-202611210200.xml`]: cut.slice(0, cut.indexOf("<Store><StoreId>3")) });
    expect(report.files[0]).toMatchObject({ status: "partial" });
    expect(ctx.db.prices.query("SELECT count(*) AS n FROM stores WHERE closed_at IS NULL").get()).toEqual({ n: 3 });
  });

  test("a store first seen in a price file newer than the list is not closed by it", async () => {
    const { ctx, run } = setup();
    await run({ ...priceFull("9", "202611210300"), [`Stores${RAMI}-202611200200.xml`]: cerberusStoresXml(RAMI, stores("1", "2"), null) });
    expect(ctx.db.prices.query("SELECT store_code, closed_at FROM stores ORDER BY store_code").all()).toEqual([
      { store_code: "1", closed_at: null },
      { store_code: "2", closed_at: null },
      { store_code: "9", closed_at: null },
    ]);
  });
});

describe("a chain's code that stopped publishing (issue 47 part 3)", () => {
  // Carrefour publishes under three codes; an old list under one of them must not keep its stores open.
  const CARREFOUR = "7290055700007";
  const CARREFOUR_OLD = "7290725900003";
  const current = { [`Stores${CARREFOUR}-202611200200.xml`]: cerberusStoresXml(CARREFOUR, stores("1", "2", "3"), null) };
  const old = {
    [`Stores${CARREFOUR_OLD}-202211020200.xml`]: cerberusStoresXml(CARREFOUR_OLD, stores("901", "902", "903", "904"), null),
    [`PriceFull${CARREFOUR_OLD}-901-202211020300.xml`]: binaPriceXml(CARREFOUR_OLD, "901", [{ code: MILK, price: "4.90" }]),
  };

  async function counted(ctx: ReturnType<typeof setup>["ctx"]) {
    const key = newKey(ctx.deps, "pro", "live").headers;
    const chain = ((await get(ctx.app, "/api/v1/chains/", key)).body.data as any[]).find((c) => c.chain_id === "carrefour");
    // /stores/ lists closed stores too, saying so: the open ones are those store_count counts.
    const listed = ((await get(ctx.app, "/api/v1/stores/?chain_id=carrefour&limit=100", key)).body.data as any[])
      .filter((s) => s.status === "open")
      .map((s) => s.store_id)
      .sort();
    // No open store of the chain sells it: no price entry (a 404 when no store ever priced it in this data).
    const prices = await get(ctx.app, `/api/v1/prices/?barcode=${MILK}&granularity=store&chain_id=carrefour`, key);
    const priced = prices.status === 404 ? 0 : (prices.body.data.prices as any[]).length;
    return { storeCount: chain.store_count, listed, priced };
  }

  test("the stores of a code silent for years are closed by the chain's newest full list; /stores/ and store_count agree", async () => {
    const { ctx, run } = setup();
    await run(old);
    const report = await run(current);
    expect(report.files[0]!.counts).toMatchObject({ rows: 3, closed: 4 });
    expect(report.files[0]!.warnings.join("\n")).toContain("4 stores with no list or file for 30 days");
    expect(await counted(ctx)).toEqual({ storeCount: 3, listed: ["1", "2", "3"], priced: 0 });
  });

  test("the same when the old list is imported after the newer one", async () => {
    const { ctx, run } = setup();
    await run(current);
    const report = await run(old);
    expect(report.files.find((f) => f.type === "stores")!.counts).toMatchObject({ closed: 4 });
    expect(await counted(ctx)).toEqual({ storeCount: 3, listed: ["1", "2", "3"], priced: 0 });
  });

  test("a store of the other code that still publishes prices stays open", async () => {
    const { ctx, run } = setup();
    await run({ ...old, [`PriceFull${CARREFOUR_OLD}-902-202611190300.xml`]: binaPriceXml(CARREFOUR_OLD, "902", [{ code: MILK, price: "5.10" }]) });
    await run(current);
    expect(await counted(ctx)).toEqual({ storeCount: 4, listed: ["1", "2", "3", "902"], priced: 1 });
  });
});
