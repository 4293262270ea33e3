import type { Database } from "bun:sqlite";
import { stmt } from "../db/statements.ts";
import type { PerVersion } from "./per-version.ts";

declare module "../deps.ts" {
  interface DataTables {
    /** The stores' cities the VAT rule treats as Eilat, a JSON array (eilat.ts). */
    eilatCities: PerVersion<string>;
  }
}

/** The stores' cities the VAT rule treats as Eilat, as a JSON array (for SQL's json_each). */
export function readEilatCities(db: Database): string {
  const cities = (stmt(db, "SELECT DISTINCT city FROM stores WHERE city IS NOT NULL").all() as { city: string }[]).map((r) => r.city).filter((c) => isEilatCity(c));
  return JSON.stringify(cities);
}

/** Eilat is a VAT-free zone: its shelf prices exclude VAT. Matches the stored (resolved) city name. */
export function isEilatCity(city: string | null): boolean {
  if (!city) return false;
  const c = city.trim().toLowerCase();
  return c === "אילת" || c === "eilat" || c === "2600";
}
