import type { Catalog, DemoProduct } from "./catalog.ts";
import type { Assortment, Profile } from "./profiles.ts";
import type { Random } from "./random.ts";
import type { ProduceSeed, Size } from "./seed.ts";
import { hashString } from "./random.ts";
import { roundShelf } from "./pricing.ts";

/** Something a chain sells: a catalogue product (barcode) or its own produce/deli code. */
export interface Item {
  code: string;
  /** 1 barcode, 0 chain-internal code. */
  itemType: 0 | 1;
  name: string;
  manufacturer: string | null;
  country: string;
  category: string;
  /** Null for items sold by weight or per bunch. */
  size: Size | null;
  /** Sold per kilogram. */
  weighted: boolean;
  familyKey: string;
  stem: string;
  brand: string | null;
  /** The chain's shelf price at the start of the history, agorot (per kg when weighted). */
  startPrice: number;
}

/** Relative shelf space per category for each kind of store (0 = not sold). */
const WEIGHTS: Record<Assortment, Record<string, number>> = {
  supermarket: { alcohol: 0.8, health: 0.3, pets: 0.8 },
  discounter: { alcohol: 0.6, health: 0.2, "personal-care": 0.8, pets: 0.7 },
  convenience: {
    snacks: 3, sweets: 3, beverages: 3, alcohol: 2, dairy: 1.5, bakery: 1.5, "coffee-tea": 1, deli: 0.8, breakfast: 0.6,
    pantry: 0.4, canned: 0.3, frozen: 0.6, meat: 0.2, fish: 0.05, cleaning: 0.3, paper: 0.4, "personal-care": 0.3,
    health: 0.3, baby: 0.2, pets: 0.2,
  },
  drugstore: {
    "personal-care": 8, health: 8, baby: 5, cleaning: 2, paper: 2, snacks: 1, sweets: 1.2, beverages: 0.8,
    "coffee-tea": 0.5, breakfast: 0.4, pets: 0.8,
  },
  online: { alcohol: 1.2, health: 0.3 },
};
const DEFAULT_WEIGHT: Record<Assortment, number> = { supermarket: 1, discounter: 1, convenience: 0, drugstore: 0, online: 1 };

/** Barcoded products carried, before the scale option. */
const SIZE: Record<Assortment, [number, number]> = {
  supermarket: [1700, 2200],
  discounter: [1500, 2000],
  convenience: [550, 850],
  drugstore: [900, 1200],
  online: [1000, 1300],
};
const PRODUCE: Record<Assortment, [number, number]> = {
  supermarket: [38, 56],
  discounter: [34, 50],
  convenience: [6, 10],
  drugstore: [0, 0],
  online: [20, 30],
};

/**
 * The items a chain sells over the demo period: a weighted sample of the catalogue by the
 * chain's kind of store, its own private label, and its produce and deli counter under its
 * own internal codes (PLUs like 4011, or short sequential codes — they collide across chains).
 */
export function chainItems(slug: string, profile: Profile, catalog: Catalog, produce: ProduceSeed[], rng: Random, scale: number): Item[] {
  const weights = WEIGHTS[profile.assortment];
  const fallback = DEFAULT_WEIGHT[profile.assortment];
  const own = catalog.privateLabels.get(slug) ?? [];
  const [lo, hi] = SIZE[profile.assortment];
  const target = Math.max(8, Math.round(rng.int(lo, hi) * scale)) - Math.round(own.length * scale);

  // Efraimidis–Spirakis weighted sampling without replacement: keep the largest u^(1/w).
  const keyed: { product: DemoProduct; key: number }[] = [];
  for (const product of catalog.products) {
    if (product.privateLabelOf) continue;
    const weight = weights[product.category] ?? fallback;
    if (weight <= 0) continue;
    keyed.push({ product, key: Math.pow(rng.next(), 1 / weight) });
  }
  keyed.sort((a, b) => b.key - a.key || a.product.key - b.product.key);
  const chosen = keyed.slice(0, target).map((k) => k.product);
  const ownShare = own.filter((_, i) => scale >= 1 || i % Math.max(1, Math.round(1 / scale)) === 0);
  const products = [...chosen, ...ownShare].sort((a, b) => a.key - b.key);

  const items: Item[] = products.map((p) => ({
    code: p.barcode,
    itemType: 1,
    name: p.name,
    manufacturer: p.manufacturer,
    country: p.country,
    category: p.category,
    size: p.size,
    weighted: false,
    familyKey: p.familyKey,
    stem: p.stem,
    brand: p.brand,
    startPrice: roundShelf(p.basePrice * profile.priceLevel * rng.float(0.95, 1.05), profile.ending),
  }));

  const [plo, phi] = PRODUCE[profile.assortment];
  const produceCount = Math.round(rng.int(plo, phi) * Math.min(1, scale * 4));
  const codes = produceCodes(slug);
  const named = produceNames(slug);
  const picked = rng.sample(produce, produceCount).sort((a, b) => produce.indexOf(a) - produce.indexOf(b));
  for (const seed of picked) {
    const perUnit = seed.unit === true;
    items.push({
      code: codes(seed, produce.indexOf(seed)),
      itemType: 0,
      name: named(seed),
      manufacturer: null,
      country: "IL",
      category: seed.deli ? "deli" : "produce",
      size: perUnit ? { count: 1, each: 1, unit: "unit", label: "1 יח'" } : null,
      weighted: !perUnit,
      familyKey: `produce:${seed.n}`,
      stem: seed.n,
      brand: null,
      startPrice: roundShelf(rng.float(seed.p[0], seed.p[1]) * 100 * Math.sqrt(profile.priceLevel), profile.ending),
    });
  }
  return items;
}

/**
 * Each chain names its counter items its own way, as real files do: the common name, another
 * spelling (`עגבניה` for `עגבניות`, `תפו"א לבן`), or the name with `במשקל` for items sold by weight.
 */
function produceNames(slug: string): (seed: ProduceSeed) => string {
  const style = hashString(`produce-names:${slug}`) % 3;
  if (style === 1) return (seed) => seed.a?.[0] ?? seed.n;
  if (style === 2) return (seed) => (seed.unit || seed.n.includes("במשקל") ? seed.n : `${seed.n} במשקל`);
  return (seed) => seed.n;
}

/** Each chain numbers its counter items its own way: PLU codes, 1–3 digit codes, or a 6-digit range. */
function produceCodes(slug: string): (seed: ProduceSeed, index: number) => string {
  const style = hashString(`produce-codes:${slug}`) % 3;
  if (style === 0) return (seed, index) => String(seed.plu ?? 9000 + index);
  if (style === 1) return (_seed, index) => String(index + 1);
  const base = 200000 + (hashString(slug) % 700) * 1000;
  return (_seed, index) => String(base + index * 7);
}
