import { basename } from "node:path";
import type { FileName, FileType } from "../records.ts";
import type { FoundFile } from "./collect.ts";
import { fileTypeOfName } from "../files/name.ts";

// Stores first (prices and promotions attach to them), then price files (promotion items
// reference their products), then promotion files, then files whose name says nothing (a name
// whose type prefix reads, e.g. `PriceFull_x.xml`, still sorts with its kind).
const GROUP: Record<FileType, number> = { stores: 0, pricefull: 1, price: 1, promofull: 2, promo: 2 };
// At equal times the full list comes before the delta published with it.
const RANK: Record<FileType, number> = { stores: 0, pricefull: 0, price: 1, promofull: 0, promo: 1 };

export interface OrderedFile extends FoundFile {
  fileName: string;
  name: FileName | null;
}

/**
 * Orders files for loading: Stores, then price files, then promotion files, each oldest first,
 * PriceFull before Price and PromoFull before Promo at equal times; unrecognised names last.
 * Within a kind this is the publication order, which is what replace/update semantics need.
 *
 * @example orderFiles(found, parseName).map((f) => f.fileName)
 * // ["Stores…-202611200100", "PriceFull…-001-202611200300", "Price…-001-202611201100", "PromoFull…-001-202611200300"]
 */
export function orderFiles(files: FoundFile[], parseName: (fileName: string) => FileName | null): OrderedFile[] {
  const keyed = files.map((file) => {
    const fileName = basename(file.path);
    const name = parseName(fileName);
    const type = name?.type ?? fileTypeOfName(fileName);
    const time = name?.time ? Date.parse(name.time) : Number.POSITIVE_INFINITY;
    return { file: { ...file, fileName, name }, group: type ? GROUP[type] : 3, time, rank: type ? RANK[type] : 0 };
  });
  keyed.sort((a, b) => a.group - b.group || a.time - b.time || a.rank - b.rank || (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  return keyed.map((k) => k.file);
}
