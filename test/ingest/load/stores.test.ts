import { describe, expect, test } from "bun:test";
import { resolveCity } from "../../../src/geo/geo.ts";
import { RAMI_LEVY, VICTORY, at, gtin, item, pricesInput, store, storesInput } from "../../helpers/price-records.ts";
import { freshDb, runInputs } from "../../helpers/ingest/session-helpers.ts";

const STOP_MARKET_SHORT = "72906390";
const STOP_MARKET = "7290639000004";

describe("Stores files", () => {
  test("upserts stores and sub-chains, resolving the city and region", () => {
    const db = freshDb();
    const { outcomes } = runInputs(
      db,
      [
        storesInput(RAMI_LEVY, at(20), [
          store(RAMI_LEVY, "001", { city: "4000", subChainCode: "1", subChainName: "רמי לוי" }),
          store(RAMI_LEVY, "2", { city: "כפר נידח", subChainCode: "2", subChainName: "רמי לוי בשכונה" }),
        ]),
      ],
      { resolveCity },
    );
    expect(outcomes[0]).toMatchObject({ status: "ok", rows: 2, type: "stores", chainSlug: "rami-levy" });
    expect(db.query("SELECT store_code, sub_chain_code, name, city, region, updated_at FROM stores ORDER BY store_code").all()).toEqual([
      { store_code: "1", sub_chain_code: "1", name: "סניף 001", city: "חיפה", region: "haifa", updated_at: at(20) },
      { store_code: "2", sub_chain_code: "2", name: "סניף 2", city: "כפר נידח", region: null, updated_at: at(20) },
    ]);
    expect(db.query("SELECT code, name FROM sub_chains ORDER BY code").all()).toEqual([
      { code: "1", name: "רמי לוי" },
      { code: "2", name: "רמי לוי בשכונה" },
    ]);
  });

  test("fills in the minimal row a price file created; an older Stores file changes nothing", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "5", at(20), [item(gtin(1), 100)])]);
    runInputs(db, [storesInput(RAMI_LEVY, at(21), [store(RAMI_LEVY, "5", { name: "תלפיות" })])]);
    runInputs(db, [storesInput(RAMI_LEVY, at(19), [store(RAMI_LEVY, "5", { name: "ישן" })])]);
    expect(db.query("SELECT count(*) AS n, max(name) AS name, max(prices_at) AS prices_at FROM stores").get()).toEqual({
      n: 1,
      name: "תלפיות",
      prices_at: at(20),
    });
  });

  test("one file may list stores under two codes of the chain; records of other chains are skipped", () => {
    const db = freshDb();
    const { outcomes } = runInputs(db, [
      storesInput(VICTORY, at(20), [store(VICTORY, "1"), store("7290058103393", "87"), store(RAMI_LEVY, "3")]),
    ]);
    expect(outcomes[0]).toMatchObject({ rows: 2, counts: { rows: 2, skipped: 1 } });
    expect(db.query("SELECT chain_code, store_code FROM stores ORDER BY store_code").all()).toEqual([
      { chain_code: VICTORY, store_code: "1" },
      { chain_code: "7290058103393", store_code: "87" },
    ]);
  });

  test("a truncated chain code (Stop Market's 72906390) meets the price files' full code on one store", () => {
    const db = freshDb();
    runInputs(db, [
      storesInput(STOP_MARKET_SHORT, at(20), [store(STOP_MARKET_SHORT, "1", { name: "בית חירות" })], {
        name: { type: "stores", chainCode: STOP_MARKET_SHORT, subChainCode: null, storeCode: null, time: at(20), isNullPlaceholder: false },
      }),
      pricesInput("pricefull", STOP_MARKET, "001", at(20, 6), [item(gtin(1), 100)]),
    ]);
    expect(db.query("SELECT chain_code, store_code, name, prices_at FROM stores").all()).toEqual([
      { chain_code: STOP_MARKET, store_code: "1", name: "בית חירות", prices_at: at(20, 6) },
    ]);
  });
});
