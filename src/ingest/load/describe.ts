import { normaliseCode, type Chain, type Registry } from "../../registry.ts";
import type { FileType, ParsedFile } from "../records.ts";
import { resolveFileChain } from "./chain.ts";
import { fileTypeOfName } from "../files/name.ts";
import { detach } from "./detach.ts";
import { contentKind, type LoadInput } from "./types.ts";
import type { PriceList } from "./price-rows.ts";

/** Everything the loader needs to know about a file before touching the database. */
export interface FileDescription {
  type: FileType;
  chain: Chain;
  /** Canonical chain code the file's stores and promotions are keyed under. */
  chainCode: string;
  /** Null for Stores files. */
  storeCode: string | null;
  subChainCode: string | null;
  time: string;
  timeMs: number;
  warnings: string[];
}

export type Description =
  | { ok: true; file: FileDescription }
  | { ok: false; reason: string; type: FileType | null; chainCode: string | null; chainSlug: string | null; storeCode: string | null; time: string | null };

const KIND_OF: Record<FileType, ParsedFile["kind"]> = {
  stores: "stores",
  pricefull: "prices",
  price: "prices",
  promofull: "promos",
  promo: "promos",
};
// Without a type in the name the safe reading is the delta: it never removes anything.
const TYPE_OF_KIND: Record<ParsedFile["kind"], FileType> = { stores: "stores", prices: "price", promos: "promo" };

// Copied (detach): header values are substrings of the whole decoded file, and the run's
// report keeps these codes until the end of the run.
const code = (value: string | null | undefined) => (value && /^\d+$/.test(value.trim()) ? detach(normaliseCode(value.trim())) : null);

/**
 * The newest row update time of a file (PriceUpdateDate / PromotionUpdateDate), not later than
 * `now`: the best stand-in for a file time missing from the name. Stamping such a file with the
 * import time instead would make every real file published before the import look older than it
 * and be skipped.
 *
 * @example newestRowTime(parsedPriceFull, new Date()) // "2025-02-10T00:10:00+02:00"
 */
export function newestRowTime(parsed: ParsedFile | PriceList, now: Date): string | null {
  const limit = now.getTime();
  let best: string | null = null;
  let bestMs = -Infinity;
  const consider = (value: string | null) => {
    if (!value) return;
    const ms = Date.parse(value);
    if (ms > bestMs && ms <= limit) {
      best = value;
      bestMs = ms;
    }
  };
  if (parsed.kind === "price-rows") for (let i = 0; i < parsed.rows.count; i++) consider(parsed.rows.updatedAt(i));
  else if (parsed.kind === "prices") for (const item of parsed.items) consider(item.updatedAt);
  else if (parsed.kind === "promos") for (const promotion of parsed.promotions) consider(promotion.updatedAt);
  return best === null ? null : detach(best);
}

/** A time no later than `now` (a time in the future is a wrong clock, not a publication time). */
function notAfter(value: string | null, now: Date): string | null {
  return value !== null && Date.parse(value) <= now.getTime() ? value : null;
}

/**
 * Works out a parsed file's type, chain, store and time from its name and header, or why it
 * is rejected: unknown chain, a header chain that is not the name's, content of another type
 * than the name says, a store file without a store code.
 *
 * @example describeFile(registry, input, new Date())
 * // { ok: true, file: { type: "pricefull", chain: rami-levy, chainCode: "7290058140886", storeCode: "1", time: "2026-11-22T05:00:00+02:00", … } }
 */
export function describeFile(registry: Registry, input: LoadInput, now: Date): Description {
  const { name, parsed } = input;
  const kind = contentKind(parsed);
  const header = parsed.chainCode;
  const nameType = name?.type ?? null;
  // A name whose type prefix reads but whose rest does not still says full or delta: a PriceFull
  // is never taken for a delta.
  const hinted = nameType ? null : fileTypeOfName(input.fileName);
  const type = nameType ?? (hinted && KIND_OF[hinted] === kind ? hinted : TYPE_OF_KIND[kind]);
  const headerStore = parsed.kind === "stores" ? null : code(parsed.storeCode);
  const storeCode = parsed.kind === "stores" ? null : (code(name?.storeCode) ?? headerStore);
  const time = name?.time ?? null;
  const fail = (reason: string, chainSlug: string | null = null): Description => ({
    ok: false,
    reason,
    type,
    chainCode: code(name?.chainCode) ?? code(header),
    chainSlug,
    storeCode,
    time,
  });

  const chain = resolveFileChain(registry, name?.chainCode ?? null, header);
  if (!chain.ok) return fail(chain.reason);
  const slug = chain.value.chain.slug;
  if (nameType && KIND_OF[nameType] !== kind) return fail(`the file name says ${nameType} but the content is ${kind}`, slug);
  if (kind !== "stores" && !storeCode) return fail("no store code in the file name or content", slug);

  const warnings: string[] = [];
  const nameStore = code(name?.storeCode);
  if (nameStore && headerStore && nameStore !== headerStore) {
    warnings.push(`header store ${headerStore} differs from the file name's store ${nameStore}; used the name's`);
  }
  // The chains' time, never the import's: the name's, else the list's own header time, else the
  // newest of the rows' own times; a file with none cannot be ordered against the data held.
  let at = time;
  if (!at) {
    const header = parsed.kind === "stores" ? notAfter(parsed.updatedAt ?? null, now) : null;
    const newest = header ?? (parsed.kind === "stores" ? notAfter(parsed.newestRowAt ?? null, now) : newestRowTime(parsed, now));
    if (!newest) return fail("no publication time in the file name, its header or its rows: it cannot be ordered against the data held", slug);
    at = detach(newest);
    warnings.push(header ? "no time in the file name; used the time in the file's header" : "no time in the file name; used the newest update time in the file");
  }
  return {
    ok: true,
    file: {
      type,
      chain: chain.value.chain,
      chainCode: chain.value.code,
      storeCode,
      subChainCode: code(name?.subChainCode) ?? (parsed.kind === "stores" ? null : code(parsed.subChainCode)),
      time: at,
      timeMs: Date.parse(at),
      warnings,
    },
  };
}
