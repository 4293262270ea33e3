import * as z from "zod";
import productsJson from "../../data/demo/products.json" with { type: "json" };
import storesJson from "../../data/demo/stores.json" with { type: "json" };

/** The curated seed behind the demo: product families, produce, and stores per chain. */

const SIZE = /^(?:(\d+)x)?(\d+(?:\.\d+)?)(g|kg|ml|l|u|m)$/;

const FamilySchema = z.object({
  /** Category slug (the demo's own; the service classifies names itself). */
  c: z.string().min(1),
  /** Base name; may be empty when the variant is the name ("תירס מתוק"). */
  n: z.string(),
  b: z.array(z.string().min(1)).min(1),
  v: z.array(z.string()).min(1),
  s: z.array(z.string().regex(SIZE)).min(1),
  /** Typical shelf price range in ILS for the first size. */
  p: z.tuple([z.number().positive(), z.number().positive()]),
  /** Name template with {n} {b} {v} {s}; default "{n} {b} {v} {s}". */
  t: z.string().optional(),
  /** Chains with a private label also sell this family under their own brand. */
  pl: z.boolean().optional(),
});

const ProduceSchema = z.object({
  n: z.string().min(1),
  p: z.tuple([z.number().positive(), z.number().positive()]),
  /** The PLU code chains that use PLUs give it (bananas 4011). */
  plu: z.number().int().optional(),
  /** Other names chains publish for it (a singular, another spelling), as real files vary. */
  a: z.array(z.string().min(1)).optional(),
  /** Sold per unit (a bunch) rather than per kg. */
  unit: z.boolean().optional(),
  /** Butcher/deli counter item, weighed. */
  deli: z.boolean().optional(),
});

const ProductSeedSchema = z.object({
  brands: z.record(z.string(), z.tuple([z.string(), z.string()])),
  privateLabels: z.record(z.string(), z.string()),
  families: z.array(FamilySchema).min(1),
  produce: z.array(ProduceSchema).min(1),
});

const StoreSeedSchema = z.object({
  id: z.string().regex(/^\d+$/),
  name: z.string().min(1),
  address: z.string(),
  /** As the chain publishes it: a spelling, "unknown", or empty. */
  city: z.string(),
  zip: z.string().optional(),
  sub: z.string().optional(),
  subName: z.string().optional(),
  type: z.number().int().optional(),
  /** The chain code the store publishes under (default: the chain's first code). */
  code: z.string().regex(/^\d+$/).optional(),
});

const StoresSeedSchema = z.object({ chains: z.record(z.string(), z.array(StoreSeedSchema)) });

export type Family = z.infer<typeof FamilySchema>;
export type ProduceSeed = z.infer<typeof ProduceSchema>;
export type ProductSeed = z.infer<typeof ProductSeedSchema>;
export type StoreSeed = z.infer<typeof StoreSeedSchema>;

export interface DemoSeed {
  products: ProductSeed;
  stores: Record<string, StoreSeed[]>;
}

/**
 * How many stores the seed lists for a chain (undefined for none), read without validating the
 * seed: a server's thread asks it to share the demo's chains between its workers, and zod's
 * first parse of the whole seed would hold that thread 60–100 ms (the workers validate the
 * seed when they write the chains).
 */
export function seedStoreCount(slug: string): number | undefined {
  return (storesJson as { chains: Record<string, unknown[] | undefined> }).chains[slug]?.length;
}

let cached: DemoSeed | undefined;

/** The seed embedded in the binary (data/demo/*.json), validated once. */
export function loadSeed(): DemoSeed {
  cached ??= {
    products: ProductSeedSchema.parse(productsJson),
    stores: StoresSeedSchema.parse(storesJson).chains,
  };
  return cached;
}

export interface Size {
  /** Units in the pack (6 for "6x1.5l"). */
  count: number;
  /** Amount of one unit in base units (g, ml, units, m). */
  each: number;
  unit: "g" | "ml" | "unit" | "m";
  /** Hebrew label as in product names: "1.5 ליטר", "6*330 מ\"ל", "10 יח'". */
  label: string;
}

/**
 * Parses a seed size token.
 * @example parseSize("6x1.5l") // { count: 6, each: 1500, unit: "ml", label: "6*1.5 ליטר" }
 */
export function parseSize(token: string): Size {
  const m = SIZE.exec(token);
  if (!m) throw new Error(`bad size ${token}`);
  const count = m[1] ? Number(m[1]) : 1;
  const amount = Number(m[2]);
  const unit = m[3]!;
  const words: Record<string, string> = { g: "גרם", kg: 'ק"ג', ml: 'מ"ל', l: "ליטר", u: "יח'", m: "מטר" };
  const label = `${count > 1 ? `${count}*` : ""}${m[2]} ${words[unit]}`;
  switch (unit) {
    case "g":
      return { count, each: amount, unit: "g", label };
    case "kg":
      return { count, each: amount * 1000, unit: "g", label };
    case "ml":
      return { count, each: amount, unit: "ml", label };
    case "l":
      return { count, each: amount * 1000, unit: "ml", label };
    case "m":
      return { count, each: amount, unit: "m", label };
    default:
      return { count, each: amount, unit: "unit", label };
  }
}
