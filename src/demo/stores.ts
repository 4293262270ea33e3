import type { Chain } from "../registry.ts";
import { findCity, isEilat, loadCities } from "../geo/geo.ts";
import type { Random } from "./random.ts";
import type { StoreSeed } from "./seed.ts";

export interface DemoStore {
  chainSlug: string;
  /** The chain code the store publishes under. */
  code: string;
  /** As the chain pads it ("001", "0037", "2"). */
  id: string;
  subChain: string;
  subChainName: string;
  name: string;
  address: string;
  /** Published City text (may be a spelling variant, "unknown" or empty). */
  city: string;
  /** CBS code of the city when known (Shufersal publishes it instead of the name). */
  cityCode: number | null;
  zip: string;
  storeType: number;
  bikoret: string;
  eilat: boolean;
  /** Store-wide price factor (Shufersal Sheli/Express cost more than Deal). */
  priceFactor: number;
}

const SUB_FACTOR: Record<string, number> = { "שופרסל שלי": 1.05, "שופרסל אקספרס": 1.12 };

/**
 * The demo stores of a chain: from data/demo/stores.json, or — for a chain the seed does not
 * list — two or three stores in cities picked from data/cities.json.
 */
export function chainStores(chain: Chain, seeds: StoreSeed[] | undefined, rng: Random): DemoStore[] {
  const list = seeds && seeds.length > 0 ? seeds : fallbackSeeds(chain, rng);
  return list.map((s) => {
    const city = findCity(s.city);
    return {
      chainSlug: chain.slug,
      code: s.code ?? chain.chain_codes[0]!,
      id: s.id,
      subChain: s.sub ?? "1",
      subChainName: s.subName ?? s.sub ?? "1",
      name: s.name,
      address: s.address,
      city: s.city,
      cityCode: city?.code ?? null,
      zip: s.zip ?? "",
      storeType: s.type ?? 1,
      bikoret: String(checkDigit(s.id)),
      eilat: isEilat(s.city),
      priceFactor: SUB_FACTOR[s.subName ?? ""] ?? 1,
    };
  });
}

function fallbackSeeds(chain: Chain, rng: Random): StoreSeed[] {
  const cities = rng.sample(loadCities().cities.slice(0, 60), rng.int(2, 3));
  return cities.map((city, i) => ({
    id: String(i + 1).padStart(3, "0"),
    name: `${chain.name} ${city.name}`,
    address: `רחוב הרצל ${rng.int(1, 120)}`,
    city: city.name,
  }));
}

/** A store's "BikoretNo": the chains print a check digit of the store number. */
function checkDigit(id: string): number {
  let sum = 0;
  for (const ch of id) sum += Number(ch);
  return (10 - (sum % 10)) % 10;
}
