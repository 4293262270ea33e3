/** Shared set-up of the loader tests: a fresh database and a one-call run of parsed inputs. */
import type { Database } from "bun:sqlite";
import { openMemory } from "../../../src/db/open.ts";
import { loadRegistry } from "../../../src/registry.ts";
import { LoadSession, type SessionOptions } from "../../../src/ingest/load/session.ts";
import type { FileOutcome, LoadInput } from "../../../src/ingest/load/types.ts";

export const NOW = new Date("2026-11-25T10:00:00Z");

export function freshDb(): Database {
  return openMemory().prices;
}

/** Loads the inputs in one session and commits; returns the outcomes and the new data version. */
export function runInputs(db: Database, inputs: LoadInput[], options: Partial<SessionOptions> = {}): { outcomes: FileOutcome[]; version: number | null } {
  const session = LoadSession.begin({ db, registry: loadRegistry(), now: () => NOW, ...options });
  const outcomes = inputs.map((input) => session.loadFile(input));
  const version = session.finish("live");
  return { outcomes, version };
}

/** price_current of one store as { barcode: agorot }. */
export function storePrices(db: Database, chainCode: string, storeCode: string): Record<string, number> {
  const rows = db
    .query(
      `SELECT p.barcode_key AS code, pc.price FROM price_current pc
         JOIN stores s ON s.id = pc.store_id JOIN products p ON p.id = pc.product_id
        WHERE s.chain_code = ? AND s.store_code = ? ORDER BY p.barcode_key`,
    )
    .all(chainCode, storeCode) as { code: string; price: number }[];
  return Object.fromEntries(rows.map((r) => [r.code, r.price]));
}

/** price_history of one product in one store, oldest first, as [valid_from, price]. */
export function history(db: Database, chainCode: string, storeCode: string, barcodeKey: string): [string, number | null][] {
  const rows = db
    .query(
      `SELECT ph.valid_from, ph.price FROM price_history ph
         JOIN stores s ON s.id = ph.store_id JOIN products p ON p.id = ph.product_id
        WHERE s.chain_code = ? AND s.store_code = ? AND p.barcode_key = ? ORDER BY ph.valid_from`,
    )
    .all(chainCode, storeCode, barcodeKey) as { valid_from: string; price: number | null }[];
  return rows.map((r) => [r.valid_from, r.price]);
}

export function count(db: Database, sql: string, ...params: (string | number)[]): number {
  return (db.query(sql).get(...params) as { n: number }).n;
}
