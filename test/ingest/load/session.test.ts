import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../../src/db/open.ts";
import { PRICE_MIGRATIONS } from "../../../src/db/price-schema.ts";
import { loadRegistry } from "../../../src/registry.ts";
import { LoadSession } from "../../../src/ingest/load/session.ts";
import { RAMI_LEVY, SHUFERSAL, at, gtin, item, pricesInput, promoItem, promosInput, promotion, storesInput, store } from "../../helpers/price-records.ts";
import { NOW, count, freshDb, history, runInputs, storePrices } from "../../helpers/ingest/session-helpers.ts";

const A = gtin(1), B = gtin(2);

function dataVersion(db: import("bun:sqlite").Database): number {
  const row = db.query("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: string } | null;
  return Number(row?.value ?? 0);
}

describe("files that are rejected", () => {
  test("a chain code missing from the registry is reported, not guessed", () => {
    const db = freshDb();
    const { outcomes } = runInputs(db, [
      pricesInput("pricefull", "7290000000999", "1", at(20), [item(A, 100)]),
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 100)]),
    ]);
    expect(outcomes[0]).toMatchObject({ status: "rejected", reason: "unknown chain 7290000000999", chainCode: "7290000000999" });
    expect(count(db, "SELECT count(*) AS n FROM stores")).toBe(1);
  });

  test("a header naming another chain than the file name is rejected", () => {
    const db = freshDb();
    const input = pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 100)]);
    input.parsed = { ...input.parsed, chainCode: SHUFERSAL } as typeof input.parsed;
    const { outcomes, version } = runInputs(db, [input]);
    expect(outcomes[0]!.status).toBe("rejected");
    expect(outcomes[0]!.reason).toContain("differs from the file name's chain");
    expect(version).toBeNull();
  });

  test("content of another type than the name says, or no store code, is rejected", () => {
    const db = freshDb();
    const wrongType = promosInput("promofull", RAMI_LEVY, "1", at(20), []);
    wrongType.name!.type = "pricefull";
    const noStore = pricesInput("price", RAMI_LEVY, "1", at(20), [item(A, 1)], { name: null });
    noStore.parsed = { ...noStore.parsed, storeCode: null } as typeof noStore.parsed;
    const { outcomes } = runInputs(db, [wrongType, noStore]);
    expect(outcomes.map((o) => o.reason)).toEqual(["the file name says pricefull but the content is promos", "no store code in the file name or content"]);
  });
});

describe("chain health", () => {
  test("a file over 1 KB with no rows is partial and flags zero_rows; good files set last_data_at", () => {
    const db = freshDb();
    const { outcomes } = runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20, 3), [item(A, 100)]),
      pricesInput("pricefull", RAMI_LEVY, "2", at(20, 4), [], { bytes: 40_000 }),
      storesInput(SHUFERSAL, at(20, 2), [store(SHUFERSAL, "1")]),
    ]);
    expect(outcomes[1]).toMatchObject({ status: "partial", zeroRows: true, reason: "parsed to 0 rows from 40000 bytes; nothing changed" });
    // An import is not a fetch: the fetch health columns stay empty.
    expect(db.query("SELECT chain_slug, last_data_at, last_success_at, zero_rows FROM chain_health ORDER BY chain_slug").all()).toEqual([
      { chain_slug: "rami-levy", last_data_at: at(20, 3), last_success_at: null, zero_rows: 1 },
      { chain_slug: "shufersal", last_data_at: at(20, 2), last_success_at: null, zero_rows: 0 },
    ]);
  });
});

describe("atomicity", () => {
  test("a file that fails to load is rolled back alone; the rest imports", () => {
    const db = freshDb();
    const { outcomes } = runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 100)]),
      // 12.5 agorot cannot be stored in the STRICT INTEGER column: the file fails mid-way.
      pricesInput("pricefull", RAMI_LEVY, "2", at(20), [item(B, 200), item(gtin(3), 12.5)]),
      pricesInput("pricefull", RAMI_LEVY, "3", at(20), [item(B, 300)]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["ok", "rejected", "ok"]);
    expect(outcomes[1]!.reason).toStartWith("load failed:");
    expect(storePrices(db, RAMI_LEVY, "2")).toEqual({});
    expect(storePrices(db, RAMI_LEVY, "3")).toEqual({ [B]: 300 });
    // The product B the failed file inserted first was rolled back and re-created by store 3's file.
    expect(db.query("SELECT count(*) AS n FROM products WHERE barcode_key = ?").get(B)).toEqual({ n: 1 });
    expect(count(db, "SELECT count(*) AS n FROM products WHERE barcode_key = ?", gtin(3))).toBe(0);
  });

  test("an aborted run leaves the old data and data version", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 100), item(B, 200)])]);
    const before = dataVersion(db);
    const session = LoadSession.begin({ db, registry: loadRegistry(), now: () => NOW });
    session.loadFile(pricesInput("pricefull", RAMI_LEVY, "1", at(21), [item(A, 999)]));
    session.abort();
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 100, [B]: 200 });
    expect(dataVersion(db)).toBe(before);
  });

  test("a run where nothing imports commits nothing, not even the replace wipe", () => {
    const db = freshDb();
    runInputs(db, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 100)])]);
    const { version } = runInputs(db, [pricesInput("pricefull", "7290000000999", "1", at(21), [item(A, 1)])], { replace: true });
    expect(version).toBeNull();
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 100 });
    expect(dataVersion(db)).toBe(1);
  });

  test("replace deletes the previous price data in the same transaction", () => {
    const db = freshDb();
    runInputs(db, [
      pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 100)]),
      promosInput("promofull", RAMI_LEVY, "1", at(20), [promotion("P", [promoItem(A)])]),
    ]);
    runInputs(db, [pricesInput("pricefull", SHUFERSAL, "9", at(21), [item(B, 100)])], { replace: true });
    expect(db.query("SELECT chain_code, store_code FROM stores").all()).toEqual([{ chain_code: SHUFERSAL, store_code: "9" }]);
    expect(count(db, "SELECT count(*) AS n FROM products")).toBe(1);
    expect(count(db, "SELECT count(*) AS n FROM price_history")).toBe(1);
    expect(count(db, "SELECT count(*) AS n FROM promotions")).toBe(0);
    expect(db.query("SELECT key, value FROM meta WHERE key IN ('data_version', 'source') ORDER BY key").all()).toEqual([
      { key: "data_version", value: "2" },
      { key: "source", value: "live" },
    ]);
  });

  test("a reader on another connection sees the old data during the run and the new after commit", () => {
    const dir = mkdtempSync(join(tmpdir(), "mehir-load-"));
    try {
      const path = join(dir, "prices.sqlite");
      const writer = openDatabase(path, PRICE_MIGRATIONS);
      const reader = openDatabase(path, PRICE_MIGRATIONS);
      runInputs(writer, [pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 100), item(B, 200)])]);
      const snapshot = () => ({ prices: storePrices(reader, RAMI_LEVY, "1"), version: dataVersion(reader) });
      const old = snapshot();
      expect(old).toEqual({ prices: { [A]: 100, [B]: 200 }, version: 1 });

      const session = LoadSession.begin({ db: writer, registry: loadRegistry(), now: () => NOW });
      session.loadFile(pricesInput("pricefull", RAMI_LEVY, "1", at(21), [item(A, 150)]));
      expect(snapshot()).toEqual(old);
      session.loadFile(pricesInput("pricefull", RAMI_LEVY, "2", at(21), [item(B, 250)]));
      expect(snapshot()).toEqual(old);
      session.finish("live");
      expect(snapshot()).toEqual({ prices: { [A]: 150 }, version: 2 });
      writer.close();
      reader.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a file without a time in its name", () => {
  test("takes the newest update time inside it, so real files published after it still load", () => {
    const db = freshDb();
    // No time in the name; its rows were last updated on the 20th at 03:00 and 04:00.
    const undated = pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 100, { updatedAt: at(20, 3) }), item(B, 200, { updatedAt: at(20, 4) })], {
      name: { type: "pricefull", chainCode: RAMI_LEVY, subChainCode: null, storeCode: "1", time: null, isNullPlaceholder: false },
    });
    // A file named with the 21st: newer than the undated file's content, older than the import (the 25th).
    const next = pricesInput("pricefull", RAMI_LEVY, "1", at(21), [item(A, 150), item(B, 200)]);
    const { outcomes } = runInputs(db, [undated, next]);
    expect(outcomes[0]!.status).toBe("ok");
    expect(outcomes[0]!.warnings).toContain("no time in the file name; used the newest update time in the file");
    expect(outcomes[1]!.status).toBe("ok");
    expect(storePrices(db, RAMI_LEVY, "1")).toEqual({ [A]: 150, [B]: 200 });
    expect(history(db, RAMI_LEVY, "1", A)).toEqual([
      [at(20, 4), 100],
      [at(21), 150],
    ]);
  });

  test("with no update times either, it is rejected: the import time is never a file's time", () => {
    const db = freshDb();
    const undated = pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 100, { updatedAt: null })], {
      name: { type: "pricefull", chainCode: RAMI_LEVY, subChainCode: null, storeCode: "1", time: null, isNullPlaceholder: false },
    });
    const { outcomes, version } = runInputs(db, [undated]);
    expect(outcomes[0]).toMatchObject({ status: "rejected", reason: expect.stringContaining("no publication time") });
    expect(version).toBeNull();
  });
});

describe("idle work between files", () => {
  /** 12 stores × 3,000 items (36,000 history rows, past the idle write's threshold), a day of changes, and a Price at its PriceFull's minute. */
  function inputs() {
    const out = [];
    for (let s = 1; s <= 12; s++) out.push(pricesInput("pricefull", RAMI_LEVY, String(s), at(20), Array.from({ length: 3000 }, (_, k) => item(gtin(k + 1), 100 + ((k * s) % 50)))));
    // The same minute as store 1's PriceFull: its price is the one kept, in price_current and history.
    out.push(pricesInput("price", RAMI_LEVY, "1", at(20), [item(gtin(1), 999)]));
    for (let s = 1; s <= 12; s++) out.push(pricesInput("price", RAMI_LEVY, String(s), at(21), Array.from({ length: 300 }, (_, k) => item(gtin(k * 10 + 1), 200 + s))));
    return out;
  }
  const dump = (db: import("bun:sqlite").Database) =>
    JSON.stringify([
      db.query("SELECT * FROM price_current ORDER BY store_id, product_id").values(),
      db.query("SELECT * FROM price_history ORDER BY product_id, store_id, valid_from").values(),
    ]);

  test("history rows written while waiting for the next file give the same tables as writing them at the end", () => {
    const atEnd = freshDb();
    runInputs(atEnd, inputs());
    const between = freshDb();
    const session = LoadSession.begin({ db: between, registry: loadRegistry(), now: () => NOW });
    let written = 0;
    for (const input of inputs()) {
      while (session.idle()) written++;
      session.loadFile(input);
    }
    expect(session.finish("live")).toBe(1);
    expect(written).toBeGreaterThan(0);
    expect(dump(between)).toBe(dump(atEnd));
    expect(history(between, RAMI_LEVY, "1", gtin(1))).toEqual([[at(20), 999], [at(21), 201]]);
  }, 60_000);

  test("nothing to do below the threshold, nor after the run", () => {
    const db = freshDb();
    const session = LoadSession.begin({ db, registry: loadRegistry(), now: () => NOW });
    session.loadFile(pricesInput("pricefull", RAMI_LEVY, "1", at(20), [item(A, 100), item(B, 200)]));
    expect(session.idle()).toBe(false);
    session.finish("live");
    expect(session.idle()).toBe(false);
    expect(count(db, "SELECT count(*) AS n FROM price_history")).toBe(2);
  });
});
