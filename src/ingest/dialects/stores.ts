import type * as Geo from "../../geo/geo.ts";
import { inIsrael } from "../../geo/distance.ts";
import { rowNode } from "../files/xml-scan.ts";
import type { XmlNode } from "../files/xml.ts";
import type { StoreRecord, StoresFile } from "../records.ts";
import { fromContext, HEADER_FIELDS } from "./header-fields.ts";
import { STORE_FIELDS } from "./store-fields.ts";
import type { Parsed, RowParser } from "./row-parser.ts";
import { collectRows, fromPath, headerOf } from "./tree.ts";
import { cleanText, stripCode, textOf, toInt } from "./values.ts";
import { parseIsraelDateTime } from "./dates.ts";

/** Row elements of store files: the table in row-elements.ts. */
import { STORE_ROWS } from "./row-elements.ts";
export { STORE_ROWS };

// geo.ts is loaded when a store file first needs it: it loads zod, ≈ 60–90 ms of a parse worker's
// start-up, which an import waits for, and price files (nearly every file) never use it.
let geo: typeof Geo | undefined;

/** A numeric CBS locality code (2026 Shufersal, some Rami Levy rows) → its Hebrew name when known. */
function cityName(value: string | null): string | null {
  if (value === null || !/^\d+$/.test(value)) return value;
  if (/^0+$/.test(value)) return null;
  geo ??= require("../../geo/geo.ts") as typeof Geo;
  return geo.findCity(value)?.name ?? value;
}

/**
 * A store's published coordinates when both are decimal degrees inside Israel; files leave them
 * empty or put 0 or junk there, and a swapped pair (longitude first) is put right.
 */
function coordinates(latText: string | null, lonText: string | null): { latitude?: number; longitude?: number } {
  const none = {};
  if (latText === null || lonText === null) return none;
  const lat = Number(latText.trim());
  const lon = Number(lonText.trim());
  if (!/^-?\d+(\.\d+)?$/.test(latText.trim()) || !/^-?\d+(\.\d+)?$/.test(lonText.trim())) return none;
  if (inIsrael({ lat, lon })) return { latitude: lat, longitude: lon };
  if (inIsrael({ lat: lon, lon: lat })) return { latitude: lon, longitude: lat };
  return none;
}

const zip = (value: string | null) => (value === null || /^0+$/.test(value) ? null : value);

const CHAIN_TAGS = HEADER_FIELDS.chainCode.map((t) => t.toLowerCase());
const SUB_CHAIN_TAGS = HEADER_FIELDS.subChainCode.map((t) => t.toLowerCase());
const SUB_CHAIN_NAME_TAGS = ["subchainname"];

/**
 * Streams store rows of any dialect (`Root/SubChains/SubChain/Stores/Store`, `Chain/…/Store`,
 * `asx:abap/…/STORES/STORE`, `Store/Branches/Branch`, `OrderXml/…/Details/Line`), taking chain
 * and sub-chain from the row or its enclosing elements. Rows without a store id are skipped.
 *
 * @example const p = storeRowParser(); p.row(row, path); p.finish(root).file.stores[0].city // "ירושלים"
 */
export function storeRowParser(): RowParser<StoresFile> {
  const stores: StoreRecord[] = [];
  let noId = 0;
  let chainName: string | null = null;
  let newestRowAt: string | null = null;
  let newestRowMs = -Infinity;
  return {
    row(row, path) {
      const f = STORE_FIELDS.read(rowNode(row));
      const rowAt = parseIsraelDateTime(textOf(f.updatedAt)?.trim());
      if (rowAt !== null && Date.parse(rowAt) > newestRowMs) {
        newestRowAt = rowAt;
        newestRowMs = Date.parse(rowAt);
      }
      const storeCode = stripCode(f.storeCode);
      if (storeCode === null) {
        noId++;
        return;
      }
      chainName ??= cleanText(f.chainName);
      stores.push({
        chainCode: stripCode(f.chainCode ?? fromPath(path, CHAIN_TAGS)) ?? "",
        subChainCode: stripCode(f.subChainCode ?? fromPath(path, SUB_CHAIN_TAGS)),
        subChainName: cleanText(f.subChainName ?? fromPath(path, SUB_CHAIN_NAME_TAGS)),
        storeCode,
        name: cleanText(f.name),
        address: cleanText(f.address),
        city: cityName(cleanText(f.city)),
        zip: zip(cleanText(f.zip)),
        storeType: toInt(f.storeType),
        ...coordinates(cleanText(f.latitude), cleanText(f.longitude)),
      });
    },
    finish(root) {
      const header = headerOf(root, STORE_ROWS);
      const headerChain = stripCode(fromContext(header, HEADER_FIELDS.chainCode));
      return {
        file: {
          kind: "stores",
          chainCode: headerChain ?? mostCommonChain(stores),
          chainName: cleanText(fromContext(header, HEADER_FIELDS.chainName)) ?? chainName,
          updatedAt: listTime(root, header),
          newestRowAt,
          stores,
        },
        warnings: noId ? [`${noId} store rows without StoreId skipped`] : [],
      };
    },
  };
}

/**
 * {@link storeRowParser} over a whole in-memory document.
 * @example parseStores(scanXml(text).root).file.stores.length // 405
 */
export function parseStores(root: XmlNode): Parsed<StoresFile> {
  const parser = storeRowParser();
  for (const { node, path } of collectRows(root, STORE_ROWS)) parser.row(node, path);
  return parser.finish(root);
}

/**
 * The time a Stores list gives itself: `LastUpdateDate` + `LastUpdateTime` of the header (Cerberus,
 * Bina, 2026), `LASTUPDATEDATE` (SAP), or the Matrix root's `Date`/`Time` attributes (`02/11/22`).
 */
function listTime(root: XmlNode, header: Readonly<Record<string, string>>): string | null {
  const date = header.lastupdatedate ?? (typeof root["@Date"] === "string" ? root["@Date"] : undefined);
  const clock = header.lastupdatetime ?? (typeof root["@Time"] === "string" ? root["@Time"] : undefined);
  return parseIsraelDateTime(date?.trim(), clock?.trim());
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
