import table from "../../data/produce-groups.json" with { type: "json" };

/** How a generic product is sold and priced: per kilogram (items sold by weight) or per unit. */
export type SoldBy = "kg" | "unit";

export interface ProduceGroup {
  /** The stable identifier clients pass as `barcode`: `g-` and a slug (see product-id.ts). */
  id: string;
  /** The name the generic product is served under. */
  name: string;
  soldBy: SoldBy;
  category: string;
}

export interface ProduceGroups {
  groups: ProduceGroup[];
  /** The group of an item: its normalised name and how it is sold, or undefined. */
  match(name: string, soldBy: SoldBy | null): ProduceGroup | undefined;
  /** Changes whenever data/produce-groups.json does (imports regroup every item then). */
  version: string;
}

const NIQQUD = /[\u0591-\u05C7]/g;
const QUOTES = /["'`\u05F3\u05F4\u2018\u2019\u201C\u201D]/g;
const PUNCTUATION = /[^\p{L}\p{N}]+/gu;

/**
 * The grouping form of an item name: NFC, lower case, niqqud and quote marks (geresh, gershayim,
 * ASCII quotes) removed — `ק"ג` → `קג`, `תפו"א` → `תפוא`, `ג'ינג'ר` → `גינגר` — other
 * punctuation to spaces, and the table's noise words (`במשקל`, `טרי`, `תפזורת`, `קג` …) dropped.
 * @example groupingName("עגבניה טרייה - במשקל", NOISE) // "עגבניה"
 * @example groupingName("עגבניות שרי לק\"ג", NOISE)      // "עגבניות שרי"
 */
export function groupingName(name: string, noise: ReadonlySet<string>): string {
  return name
    .normalize("NFC")
    .toLowerCase()
    .replace(NIQQUD, "")
    .replace(QUOTES, "")
    .replace(PUNCTUATION, " ")
    .split(" ")
    .filter((word) => word !== "" && !noise.has(word))
    .join(" ");
}

/**
 * The produce groups of a table shaped like data/produce-groups.json: an item belongs to a
 * group when its grouping name equals one of the group's names (also put in grouping form) and
 * it is sold the group's way. Nothing fuzzy: unlisted names stay single-chain items.
 * @example produceGroups().match("עגבניות במשקל", "kg")?.id // "g-tomatoes"
 * @example produceGroups().match("עגבניות שרי", "kg")?.id   // "g-cherry-tomatoes"
 * @example produceGroups().match("עגבניות", "unit")        // undefined (sold by weight)
 */
export function produceGroups(source: typeof table = table): ProduceGroups {
  const noise = new Set(source.noise.map((w) => groupingName(w, new Set())));
  const groups: ProduceGroup[] = [];
  const byName = new Map<string, ProduceGroup>();
  for (const g of source.groups) {
    const group: ProduceGroup = { id: g.id, name: g.name, soldBy: g.sold_by as SoldBy, category: g.category };
    groups.push(group);
    for (const n of g.names) {
      const key = `${group.soldBy}|${groupingName(n, noise)}`;
      const other = byName.get(key);
      if (other && other !== group) throw new Error(`produce-groups: "${n}" (${group.soldBy}) is in ${other.id} and ${group.id}`);
      byName.set(key, group);
    }
  }
  return {
    groups,
    match: (name, soldBy) => (soldBy === null ? undefined : byName.get(`${soldBy}|${groupingName(name, noise)}`)),
    version: Bun.hash(JSON.stringify(source)).toString(36),
  };
}

/** The groups of data/produce-groups.json. */
export const PRODUCE_GROUPS = produceGroups();
