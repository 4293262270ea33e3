import type { FileType } from "../records.ts";
import { fileTypeOfName, parseFileName } from "../files/name.ts";

export interface ListingName {
  type: FileType | null;
  chainCode: string | null;
  subChainCode: string | null;
  storeCode: string | null;
  time: string | null;
  isNullPlaceholder: boolean;
}

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

/**
 * Reads what a published file name in a portal's listing says: the importer's own reading
 * (parseFileName, research notes §3) after dropping folders and `.json` too; a name with a type
 * prefix but no readable chain id still says its type.
 *
 * @example parseListingName("PriceFull7290027600007-001-001-20260824-030000.gz")
 * // { type: "pricefull", chainCode: "7290027600007", subChainCode: "1", storeCode: "1", time: "2026-08-24T03:00:00+03:00", isNullPlaceholder: false }
 */
export function parseListingName(fileName: string): ListingName {
  const name = baseName(fileName).trim();
  const parsed = parseFileName(name);
  if (parsed) return parsed;
  return { type: fileTypeOfName(name), chainCode: null, subChainCode: null, storeCode: null, time: null, isNullPlaceholder: /^null/i.test(name) };
}
