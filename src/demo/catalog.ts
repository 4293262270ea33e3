import { gtin13 } from "./gtin.ts";
import { roundShelf } from "./pricing.ts";
import { Random, hashString } from "./random.ts";
import { parseSize, type Family, type ProductSeed, type Size } from "./seed.ts";

/** A product of the demo catalogue (barcoded; chain-internal produce lives in assortment.ts). */
export interface DemoProduct {
  /** Position in the catalogue; stable for a given seed file. */
  key: number;
  barcode: string;
  name: string;
  brand: string;
  manufacturer: string;
  /** ISO 3166 alpha-2 (files spell it variously: "IL", "ישראל"). */
  country: string;
  category: string;
  size: Size;
  /** Typical shelf price at the start of the history, agorot. */
  basePrice: number;
  /** Chain slug when this is that chain's private label. */
  privateLabelOf: string | null;
  /** Products of one family and brand share it (for multi-buy promotions across flavours). */
  familyKey: string;
  /** The name without variant and size ("יוגורט דנונה"), for promotion descriptions. */
  stem: string;
}

export interface Catalog {
  products: DemoProduct[];
  /** Private-label products per chain slug (also present in `products`). */
  privateLabels: Map<string, DemoProduct[]>;
}

/**
 * Expands the seed families into products: brand × variant × size, each with a GTIN-13 from
 * its manufacturer's company number, plus each private-label chain's own versions.
 */
export function buildCatalog(seed: ProductSeed, rng: Random): Catalog {
  const products: DemoProduct[] = [];
  const companies = new CompanyNumbers();
  const privateLabels = new Map<string, DemoProduct[]>();

  seed.families.forEach((family, familyIndex) => {
    for (const brand of family.b) {
      const [manufacturer, country] = seed.brands[brand] ?? [brand, "IL"];
      addFamily(family, familyIndex, brand, manufacturer, country, null);
    }
  });
  for (const [slug, label] of Object.entries(seed.privateLabels)) {
    const before = products.length;
    seed.families.forEach((family, familyIndex) => {
      if (family.pl) addFamily(family, familyIndex, label, label, "IL", slug);
    });
    privateLabels.set(slug, products.slice(before));
  }
  return { products, privateLabels };

  function addFamily(family: Family, familyIndex: number, brand: string, manufacturer: string, country: string, plOf: string | null) {
    const company = companies.of(plOf ? `pl:${plOf}` : manufacturer);
    const sizes = family.s.map(parseSize);
    const first = sizes[0]!;
    const familyKey = `${familyIndex}:${brand}`;
    const familyRng = rng.fork(`family:${familyKey}`);
    // Private labels sit 10–20% under the brands; the rest spread over the family's range.
    const low = family.p[0] * (plOf ? 0.82 : 1);
    const high = family.p[1] * (plOf ? 0.9 : 1);
    for (const variant of family.v) {
      const variantPrice = familyRng.float(low, high) * 100;
      for (let i = 0; i < sizes.length; i++) {
        const size = sizes[i]!;
        const ratio = (size.count * size.each) / (first.count * first.each);
        const raw = variantPrice * Math.pow(ratio, size.count > 1 ? 0.8 : 0.85);
        products.push({
          key: products.length,
          barcode: gtin13(company.number, company.next()),
          // A single unit needs no size in the name ("מברשת שיניים אורל בי רכה").
          name: productName(family, brand, variant, size.unit === "unit" && size.count * size.each === 1 ? "" : size.label),
          brand,
          manufacturer,
          country,
          category: family.c,
          size,
          basePrice: roundShelf(raw, "90"),
          privateLabelOf: plOf,
          familyKey,
          // A family named by its variants ("תירס מתוק פרי הגליל") keeps the variant in its stem.
          stem: productName(family, brand, family.n ? "" : variant, ""),
        });
      }
    }
  }
}

/** "{n} {b} {v} {s}" with empty parts dropped: "חלב תנובה 3% 1 ליטר". */
export function productName(family: Family, brand: string, variant: string, sizeLabel: string): string {
  const template = family.t ?? "{n} {b} {v} {s}";
  return template
    .replace("{n}", family.n)
    .replace("{b}", brand)
    .replace("{v}", variant)
    .replace("{s}", sizeLabel)
    .replace(/\s+/g, " ")
    .trim();
}

/** Company numbers (4 digits after 729) per manufacturer, unique, derived from the name. */
class CompanyNumbers {
  private readonly byName = new Map<string, { number: number; next: () => number }>();
  private readonly taken = new Set<number>();

  of(name: string) {
    let entry = this.byName.get(name);
    if (!entry) {
      let number = 1000 + (hashString(name) % 9000);
      while (this.taken.has(number)) number = number === 9999 ? 1000 : number + 1;
      this.taken.add(number);
      let item = hashString(`items:${name}`) % 50000;
      entry = { number, next: () => item++ };
      this.byName.set(name, entry);
    }
    return entry;
  }
}
