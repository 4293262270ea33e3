import type { FileName, FileType } from "../records.ts";
import { israelLocalIso } from "../dialects/dates.ts";

// Longest prefix first: `PriceFull` before `Price`, `StoresFull` before `Stores`.
const PREFIXES: [string, FileType][] = [
  ["pricesfull", "pricefull"],
  ["pricefull", "pricefull"],
  ["promofull", "promofull"],
  ["storesfull", "stores"],
  ["stores", "stores"],
  ["prices", "price"],
  ["price", "price"],
  ["promo", "promo"],
];

const EXTENSION = /\.(gz|xml|zip)$/i;

const prefixOf = (name: string) => {
  const lower = name.toLowerCase();
  return PREFIXES.find(([p]) => lower.startsWith(p));
};

/**
 * The file type a name's prefix says, whatever follows it (`NULL` placeholders included).
 * @example fileTypeOfName("PriceFull-abc") // "pricefull"
 */
export function fileTypeOfName(name: string): FileType | null {
  const bare = name.trim().replace(/^null/i, "");
  return prefixOf(bare)?.[1] ?? null;
}
const stripZeros = (s: string) => s.replace(/^0+(?=\d)/, "");

function stamp(date: string, clock: string): string | null {
  const y = +date.slice(0, 4);
  const mo = +date.slice(4, 6);
  const d = +date.slice(6, 8);
  const h = +(clock.slice(0, 2) || 0);
  const mi = +(clock.slice(2, 4) || 0);
  const s = +(clock.slice(4, 6) || 0);
  return israelLocalIso(y, mo, d, h, mi, s);
}

/**
 * Reads a published file name (research notes §3): `<T><C>-<store>-<YYYYMMDDHHMM>`,
 * Matrix `…-<seq>`, new `<T><C>-<sub>-<store>-<YYYYMMDD>-<HHMMSS>`, chain-wide
 * `Stores<C>-<ts>` / `StoresFull<C>--<ts>` / `…-000-…`, a dash after the type
 * (`PriceFull-<C>-<store>-<ts>-<seq>`), `_` for `-`, `NULL` prefix, any case, extensions
 * `.xml` / `.gz` / `.zip` / none. Codes lose leading zeros; the time is Israel local.
 * Null when the name has no known type prefix followed by a chain id.
 *
 * @example parseFileName("PriceFull7290027600007-001-001-20260824-030000.gz")
 * // { type: "pricefull", chainCode: "7290027600007", subChainCode: "1", storeCode: "1", time: "2026-08-24T03:00:00+03:00", isNullPlaceholder: false }
 */
export function parseFileName(fileName: string): FileName | null {
  let name = (fileName.split(/[\\/]/).pop() ?? fileName).trim();
  while (EXTENSION.test(name)) name = name.replace(EXTENSION, "");
  const isNullPlaceholder = /^null/i.test(name);
  if (isNullPlaceholder) name = name.slice(4);
  const prefix = prefixOf(name);
  if (!prefix) return null;
  const type = prefix[1];
  // `PriceFull-7290696200003-097-…`: some chains put a separator between the type and the chain.
  const [chain, ...segments] = name.slice(prefix[0].length).replace(/^[-_ ]/, "").split(/[-_]/);
  if (!chain || !/^\d{1,14}$/.test(chain)) return null;
  const at = segments.findIndex((s) => /^(\d{8}|\d{12}|\d{14})$/.test(s));
  let time: string | null = null;
  let before = segments;
  if (at >= 0) {
    const ts = segments[at]!;
    const next = segments[at + 1] ?? "";
    time = stamp(ts.slice(0, 8), ts.length === 8 ? (/^\d{4}(\d{2})?$/.test(next) ? next : "") : ts.slice(8));
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
