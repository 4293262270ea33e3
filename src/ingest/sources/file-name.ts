import type { FileType } from "../records.ts";
import { israelLocalToDate, toIsraelIso } from "../../time.ts";

export interface ListingName {
  type: FileType | null;
  chainCode: string | null;
  subChainCode: string | null;
  storeCode: string | null;
  time: string | null;
  isNullPlaceholder: boolean;
}

// Longest prefix first: `PriceFull` before `Price`, `StoresFull` before `Stores`.
const PREFIXES: [RegExp, FileType][] = [
  [/^pricesfull/i, "pricefull"],
  [/^pricefull/i, "pricefull"],
  [/^promofull/i, "promofull"],
  [/^storesfull/i, "stores"],
  [/^stores/i, "stores"],
  [/^prices/i, "price"],
  [/^price/i, "price"],
  [/^promo/i, "promo"],
];

const stripZeros = (s: string) => s.replace(/^0+(?=\d)/, "");

/**
 * The name without folders and without its `.gz`/`.xml`/`.zip`/`.json` endings.
 * @example baseName("dl/PriceFull7290027600007-001-202401010300.xml.gz") // "PriceFull7290027600007-001-202401010300"
 */
export function baseName(fileName: string): string {
  let name = fileName.split(/[\\/]/).pop() ?? fileName;
  for (;;) {
    const next = name.replace(/\.(gz|xml|zip|json)$/i, "");
    if (next === name) return name;
    name = next;
  }
}

function timeFrom(date: string, clock: string): string | null {
  const y = +date.slice(0, 4), mo = +date.slice(4, 6), d = +date.slice(6, 8);
  const h = +(clock.slice(0, 2) || 0), mi = +(clock.slice(2, 4) || 0), s = +(clock.slice(4, 6) || 0);
  if (y < 2000 || y > 2100 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  return toIsraelIso(israelLocalToDate(y, mo, d, h, mi, s));
}

/**
 * Reads what a published file name says. Handles the layouts of the research notes §3:
 * `<T><C>-<store>-<YYYYMMDDHHMM>`, `…-<seq>` (Matrix), `<T><C>-<sub>-<store>-<YYYYMMDD>-<HHMMSS>`,
 * chain-wide `Stores<C>-<ts>` / `StoresFull<C>--<ts>`, and `NULL`-prefixed placeholders.
 *
 * @example parseListingName("PriceFull7290027600007-001-001-20260824-030000.gz")
 * // { type: "pricefull", chainCode: "7290027600007", subChainCode: "1", storeCode: "1", time: "2026-08-24T03:00:00+03:00", isNullPlaceholder: false }
 */
export function parseListingName(fileName: string): ListingName {
  let name = baseName(fileName).trim();
  const isNullPlaceholder = /^null/i.test(name);
  if (isNullPlaceholder) name = name.slice(4);
  const none: ListingName = { type: null, chainCode: null, subChainCode: null, storeCode: null, time: null, isNullPlaceholder };
  const prefix = PREFIXES.find(([re]) => re.test(name));
  if (!prefix) return none;
  const type = prefix[1];
  const rest = name.replace(prefix[0], "");
  const [chain, ...segments] = rest.split("-");
  if (!chain || !/^\d{1,14}$/.test(chain)) return { ...none, type };
  const at = segments.findIndex((s) => /^(\d{8}|\d{12}|\d{14})$/.test(s));
  let time: string | null = null;
  let before = segments;
  if (at >= 0) {
    const stamp = segments[at]!;
    const next = segments[at + 1] ?? "";
    const clock = stamp.length === 8 ? (/^\d{4,6}$/.test(next) ? next : "") : stamp.slice(8);
    time = timeFrom(stamp.slice(0, 8), clock);
    before = segments.slice(0, at);
  }
  const store = before.length >= 1 ? before[before.length - 1]! : "";
  const sub = before.length >= 2 ? before[before.length - 2]! : "";
  return {
    type,
    chainCode: stripZeros(chain),
    subChainCode: /^\d+$/.test(sub) ? stripZeros(sub) : null,
    // Stores files are chain-wide even when the name carries `-000-`.
    storeCode: type === "stores" || !/^\d+$/.test(store) ? null : stripZeros(store),
    time,
    isNullPlaceholder,
  };
}
