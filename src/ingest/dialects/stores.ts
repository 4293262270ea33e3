import { findCity } from "../../geo.ts";
import type { XmlNode } from "../files/xml.ts";
import type { StoreRecord, StoresFile } from "../records.ts";
import { fromContext, HEADER_FIELDS } from "./header-fields.ts";
import { STORE_FIELDS } from "./store-fields.ts";
import { collectRows, headerOf } from "./tree.ts";
import { cleanText, stripCode, toInt } from "./values.ts";

/** Row elements of store files: `Store` (Cerberus, Bina, 2026), `Branch` (Matrix), `Line` (Super-Pharm), `STORE` (SAP). */
export const STORE_ROWS: ReadonlySet<string> = new Set(["store", "branch", "line"]);

export interface ParsedStores {
  file: StoresFile;
  warnings: string[];
}

/** A numeric CBS locality code (2026 Shufersal, some Rami Levy rows) → its Hebrew name when known. */
function cityName(value: string | null): string | null {
  if (value === null || !/^\d+$/.test(value)) return value;
  if (/^0+$/.test(value)) return null;
  return findCity(value)?.name ?? value;
}

const zip = (value: string | null) => (value === null || /^0+$/.test(value) ? null : value);

/**
 * Store rows of any dialect (`Root/SubChains/SubChain/Stores/Store`, `Chain/…/Store`,
 * `asx:abap/…/STORES/STORE`, `Store/Branches/Branch`, `OrderXml/…/Details/Line`), with chain
 * and sub-chain taken from the row or the enclosing elements. Rows without a store id are
 * skipped and counted.
 *
 * @example parseStores(parseXml(text).root).file.stores.length // 405
 */
export function parseStores(root: XmlNode): ParsedStores {
  const header = headerOf(root, STORE_ROWS);
  const headerChain = stripCode(fromContext(header, HEADER_FIELDS.chainCode));
  const stores: StoreRecord[] = [];
  let noId = 0;
  const rows = collectRows(root, STORE_ROWS);
  for (const { node, context } of rows) {
    const f = STORE_FIELDS.read(node);
    const storeCode = stripCode(f.storeCode);
    if (storeCode === null) {
      noId++;
      continue;
    }
    stores.push({
      chainCode: stripCode(f.chainCode ?? fromContext(context, HEADER_FIELDS.chainCode)) ?? headerChain ?? "",
      subChainCode: stripCode(f.subChainCode ?? fromContext(context, HEADER_FIELDS.subChainCode)),
      subChainName: cleanText(f.subChainName ?? fromContext(context, ["SubChainName"])),
      storeCode,
      name: cleanText(f.name),
      address: cleanText(f.address),
      city: cityName(cleanText(f.city)),
      zip: zip(cleanText(f.zip)),
      storeType: toInt(f.storeType),
    });
  }
  const warnings = noId ? [`${noId} store rows without StoreId skipped`] : [];
  return {
    file: {
      kind: "stores",
      chainCode: headerChain ?? mostCommonChain(stores),
      chainName: cleanText(fromContext(header, HEADER_FIELDS.chainName)) ?? cleanText(STORE_FIELDS.read(rows[0]?.node ?? {}).chainName),
      stores,
    },
    warnings,
  };
}

/** Matrix files list branches of several chain ids (Victory + its second id): the usual one names the file. */
function mostCommonChain(stores: StoreRecord[]): string | null {
  const counts = new Map<string, number>();
  let best: string | null = null;
  for (const { chainCode } of stores) {
    if (!chainCode) continue;
    const n = (counts.get(chainCode) ?? 0) + 1;
    counts.set(chainCode, n);
    if (best === null || n > counts.get(best)!) best = chainCode;
  }
  return best;
}
