import { Database } from "bun:sqlite";
import { join } from "node:path";
import { PRICES_FILE } from "../../src/db/open.ts";
import { popularBarcodes } from "./national-build.ts";

/** What the mixed-load benches (bench/load.ts, bench/operations.ts) ask for, read from a national data dir. */
export interface MixData {
  /** Popular barcodes first. */
  barcodes: string[];
  /** Cities by store count, most stores first (Eilat left out: its prices exclude VAT). */
  cities: string[];
  /** Chain slugs with most stores first (five). */
  chains: string[];
  categories: string[];
  /** Search terms: first words and first two words of product names. */
  terms: string[];
}

export function mixData(dataDir: string, barcodeCount = 2000): MixData {
  const db = new Database(join(dataDir, PRICES_FILE));
  try {
    const barcodes = popularBarcodes(db, barcodeCount);
    const cities = (db.query("SELECT city FROM stores WHERE city <> 'אילת' GROUP BY city ORDER BY count(*) DESC, city LIMIT 10").all() as { city: string }[]).map((r) => r.city);
    const chains = (db.query("SELECT c.slug FROM stores s JOIN chains c ON c.id = s.chain_id GROUP BY c.slug ORDER BY count(*) DESC LIMIT 5").all() as { slug: string }[]).map((r) => r.slug);
    const categories = (db.query("SELECT DISTINCT category FROM products WHERE category IS NOT NULL LIMIT 20").all() as { category: string }[]).map((r) => r.category);
    const names = db.query("SELECT name FROM products ORDER BY id LIMIT 2000").all() as { name: string }[];
    const terms = new Set<string>();
    for (const { name } of names) {
      const parts = name.split(" ");
      terms.add(parts[0]!);
      if (parts[1]) terms.add(`${parts[0]} ${parts[1]}`);
    }
    return { barcodes, cities, chains, categories, terms: [...terms] };
  } finally {
    db.close();
  }
}

const enc = encodeURIComponent;

/** First catalog pages (20 items) of the big chains, whole and per category. */
export function catalogPaths(d: MixData): string[] {
  return d.chains.flatMap((c) => [`/api/v1/chains/${c}/catalog/?limit=20`, ...d.categories.map((k) => `/api/v1/chains/${c}/catalog/?limit=20&category=${enc(k)}`)]);
}

/** Product searches, 20 results each. */
export function searchPaths(d: MixData): string[] {
  return d.terms.map((t) => `/api/v1/product-search/?q=${enc(t)}&limit=20`);
}
