import { decompress, type Compression } from "./files/compression.ts";
import { decodeText, type TextEncodingName } from "./files/decode.ts";
import { parseFileName } from "./files/name.ts";
import { FileRejectedError } from "./files/rejected.ts";
import { parseXml } from "./files/xml.ts";
import { detectDialect, type Dialect } from "./dialects/detect.ts";
import { parsePrices } from "./dialects/prices.ts";
import { parsePromos } from "./dialects/promos.ts";
import { parseStores } from "./dialects/stores.ts";
import type { FileName, ParsedFile } from "./records.ts";

export { FileRejectedError } from "./files/rejected.ts";

export interface ReadOptions {
  /** Ceiling on decompressed bytes (zip-bomb guard); default 512 MiB. */
  maxBytes?: number;
}

export interface ReadResult {
  /** What the file name says; null when it is not a price-transparency name. */
  name: FileName | null;
  parsed: ParsedFile;
  /** The XML was cut short: `parsed` holds the complete rows before the cut (a PriceFull must not remove items). */
  partial: boolean;
  dialect: Dialect;
  compression: Compression;
  encoding: TextEncodingName;
  warnings: string[];
}

/**
 * Reads one published file: sniffs compression (gzip / zip / plain) and encoding, parses the
 * XML safely, detects the dialect ({@link detectDialect}: root element + first list container)
 * and returns the records. Throws {@link FileRejectedError} for corrupt archives, files over
 * `maxBytes`, DOCTYPE/ENTITY declarations and malformed XML; a truncated file returns the rows
 * before the cut with `partial: true`.
 *
 * @example
 * const { name, parsed, partial } = readPriceFile(await Bun.file(path).bytes(), basename(path));
 * if (parsed.kind === "prices") console.log(parsed.items.length, partial);
 */
export function readPriceFile(bytes: Uint8Array, fileName: string, options: ReadOptions = {}): ReadResult {
  const name = parseFileName(fileName);
  if (!bytes.length) throw new FileRejectedError("empty", "file is empty");
  const raw = decompress(bytes, { maxBytes: options.maxBytes });
  const decoded = decodeText(raw.bytes);
  const xml = parseXml(decoded.text);
  const warnings = [...raw.warnings, ...decoded.warnings, ...xml.warnings];
  const { dialect, kind } = detectDialect(xml.rootName, xml.root, name?.type ?? null);
  if (!kind) throw new FileRejectedError("unknown-kind", `cannot tell what <${xml.rootName}> holds and the file name does not say`);
  const expected = name ? (name.type === "stores" ? "stores" : name.type.startsWith("price") ? "prices" : "promos") : null;
  if (expected && expected !== kind) warnings.push(`file name says ${name!.type} but the content holds ${kind}`);
  const result = kind === "prices" ? parsePrices(xml.root) : kind === "promos" ? parsePromos(xml.root) : parseStores(xml.root);
  warnings.push(...result.warnings);
  if (name && result.file.chainCode && name.chainCode !== result.file.chainCode) {
    warnings.push(`file name chain ${name.chainCode} differs from content chain ${result.file.chainCode}`);
  }
  return {
    name,
    parsed: result.file,
    partial: xml.partial,
    dialect,
    compression: raw.compression,
    encoding: decoded.encoding,
    warnings,
  };
}
