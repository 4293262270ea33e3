import { decompress, type Compression, type Decompressed } from "../files/compression.ts";
import { decodeText, textForScan, utf8Body, type ScanText, type TextEncodingName } from "../files/decode.ts";
import { parseFileName } from "../files/name.ts";
import { FileRejectedError } from "../files/rejected.ts";
import { release, type SpentBytes } from "../files/release.ts";
import { NonAsciiName, rowNode, type RowHandler } from "../files/xml-scan.ts";
import { NotOnBytes, scanBytes } from "../files/xml-scan-bytes.ts";
import { parseXml, type ParsedXml, type XmlNode } from "../files/xml.ts";
import { ROW_ELEMENT_NAMES as ROW_ELEMENTS } from "../dialects/row-elements.ts";
import { detectDialect, kindOfRow, type Dialect, type Kind } from "../dialects/detect.ts";
import { priceRowParser } from "../dialects/prices.ts";
import { promoRowParser } from "../dialects/promos.ts";
import type { RowParser } from "../dialects/row-parser.ts";
import { storeRowParser } from "../dialects/stores.ts";
import type { FileName, FileType, ParsedFile } from "../records.ts";
import { packedPriceRowParser, type PackedPrices } from "./packed.ts";
import type { ProductMemo } from "../dialects/product-facts.ts";

export { FileRejectedError } from "../files/rejected.ts";

export interface ReadOptions {
  /** Ceiling on decompressed bytes (zip-bomb guard); default 512 MiB. */
  maxBytes?: number;
  /** The reading thread's {@link SpentBytes}: the inflated bytes are kept there until the next file is inflated (default: freed once read). */
  spent?: SpentBytes;
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
 * Reads one published file: sniffs compression (gzip / zip / plain) and encoding, streams the
 * XML rows into records (the parser is chosen by the first row element, {@link kindOfRow}),
 * and names the dialect ({@link detectDialect}: root element + first list container + markers). Throws {@link FileRejectedError} for corrupt archives, files over
 * `maxBytes`, DOCTYPE/ENTITY declarations and malformed XML; a truncated file returns the rows
 * before the cut with `partial: true`.
 *
 * @example
 * const { name, parsed, partial } = readPriceFile(await Bun.file(path).bytes(), basename(path));
 * if (parsed.kind === "prices") console.log(parsed.items.length, partial);
 */
export function readPriceFile(bytes: Uint8Array, fileName: string, options: ReadOptions = {}): ReadResult {
  return readWith(bytes, fileName, options, null) as ReadResult;
}

/**
 * {@link readPriceFile} for the importer: a price list comes back packed (src/ingest/parse/packed.ts),
 * streamed into its packed form with no record per row and its fields read in place; products
 * this parse thread already read during the run (`memo`) are not read again. Other kinds are as
 * readPriceFile gives them.
 * @example readPriceFilePacked(bytes, "PriceFull7290058140886-013-202511021215.gz", new ProductMemo()).parsed.kind // "prices-packed"
 */
export function readPriceFilePacked(bytes: Uint8Array, fileName: string, memo: ProductMemo | null, options: ReadOptions = {}): PackedReadResult {
  return readWith(bytes, fileName, options, { memo });
}

export type PackedReadResult = Omit<ReadResult, "parsed"> & { parsed: ParsedFile | PackedPrices };

function readWith(bytes: Uint8Array, fileName: string, options: ReadOptions, pack: { memo: ProductMemo | null } | null): PackedReadResult {
  const name = parseFileName(fileName);
  if (!bytes.length) throw new FileRejectedError("empty", "file is empty");
  options.spent?.free();
  const raw = decompress(bytes, { maxBytes: options.maxBytes });
  try {
    return readInflated(raw, name, pack);
  } finally {
    // Nothing read from the file keeps a view of its bytes (values are strings).
    if (raw.own) options.spent ? options.spent.keep(raw.bytes) : release(raw.bytes);
  }
}

function readInflated(raw: Decompressed, name: FileName | null, pack: { memo: ProductMemo | null } | null): PackedReadResult {
  const nameKind = name ? kindOfType(name.type) : null;
  const scanned = (nameKind === "prices" && pack !== null ? scanOnBytes(raw.bytes, pack) : null) ?? scanText(raw.bytes, nameKind, pack);
  const { decoded, xml, firstRow, parser } = scanned;
  const warnings = [...raw.warnings, ...decoded.warnings, ...xml.warnings];
  const { dialect, kind } = detectDialect(xml.rootName, xml.root, name?.type ?? null, firstRow);
  if (!kind) throw new FileRejectedError("unknown-kind", `cannot tell what <${xml.rootName}> holds and the file name does not say`);
  const result = (parser ?? parserFor(kind, pack)).finish(xml.root);
  const contentKind = result.file.kind === "prices-packed" ? "prices" : result.file.kind;
  if (nameKind && nameKind !== contentKind) warnings.push(`file name says ${name!.type} but the content holds ${result.file.kind}`);
  warnings.push(...result.warnings);
  if (result.file.kind === "stores") {
    // A store row with no chain id anywhere in the document belongs to the file's chain.
    const chain = result.file.chainCode ?? name?.chainCode ?? "";
    for (const store of result.file.stores) if (!store.chainCode) store.chainCode = chain;
  }
  if (name && result.file.chainCode && name.chainCode !== result.file.chainCode) {
    warnings.push(`file name chain ${name.chainCode} differs from content chain ${result.file.chainCode}`);
  }
  return {
    name,
    parsed: result.file,
    // A cut gzip stream is incomplete even when the inflated text happens to end the document.
    partial: xml.partial || raw.truncated,
    dialect,
    compression: raw.compression,
    encoding: decoded.encoding,
    warnings,
  };
}

interface Scan {
  decoded: ScanText;
  xml: ParsedXml;
  parser: RowParser<ParsedFile | PackedPrices> | null;
  firstRow: { name: string; row: XmlNode } | null;
}

/** Price rows take at least this many characters of XML in the published files (~800 is usual): sizes the packed arrays. */
const MIN_ROW_CHARS = 512;
/** The estimate stops here (a larger file grows its arrays as it goes). */
const MAX_ROWS_ESTIMATE = 2 ** 17;

const parserFor = (kind: Kind, pack: { memo: ProductMemo | null } | null, textLength = 0): RowParser<ParsedFile | PackedPrices> =>
  kind === "prices"
    ? pack
      ? packedPriceRowParser(pack.memo, Math.min(MAX_ROWS_ESTIMATE, textLength / MIN_ROW_CHARS))
      : priceRowParser()
    : kind === "promos"
      ? promoRowParser()
      : storeRowParser();

/**
 * A price file to pack, scanned on its bytes (no document-sized string; see scanBytes) when it
 * is valid UTF-8 with Hebrew; null when it is not, or holds what only the text scanner reads.
 */
function scanOnBytes(bytes: Uint8Array, pack: { memo: ProductMemo | null }): Scan | null {
  const body = utf8Body(bytes);
  if (body === null) return null;
  const rows = new Rows("prices", pack, body.length);
  try {
    const scanned = scanBytes(body, { rowNames: ROW_ELEMENTS, onRow: rows.onRow });
    const xml: ParsedXml = { rootName: scanned.rootName, root: scanned.root, partial: false, warnings: [] };
    return { decoded: { text: "", encoding: "utf-8", warnings: [], bytes: body }, xml, parser: rows.parser, firstRow: rows.firstRow };
  } catch (error) {
    if (error instanceof NotOnBytes) return null;
    throw error;
  }
}

/** The file scanned as text: the Latin-1 view of UTF-8 with Hebrew, else the decoded text. */
function scanText(bytes: Uint8Array, nameKind: Kind | null, pack: { memo: ProductMemo | null } | null): Scan {
  const fast = textForScan(bytes);
  try {
    return scan(fast, nameKind, pack);
  } catch (error) {
    // The Latin-1 view does not do (a non-ASCII name) or the file is malformed: read the decoded
    // text, so that names and error positions are those of the text.
    if (fast.bytes === null || !(error instanceof NonAsciiName || (error instanceof FileRejectedError && error.reason === "malformed-xml"))) throw error;
    return scan({ ...decodeText(bytes), bytes: null }, nameKind, pack);
  }
}

/** Streams the document's rows into records; the first row decides the parser. */
function scan(decoded: ScanText, nameKind: Kind | null, pack: { memo: ProductMemo | null } | null): Scan {
  const rows = new Rows(nameKind, pack, decoded.text.length);
  const xml = parseXml(decoded.text, { rowNames: ROW_ELEMENTS, inPlace: pack !== null, bytes: decoded.bytes ?? undefined, onRow: rows.onRow });
  return { decoded, xml, parser: rows.parser, firstRow: rows.firstRow };
}

/** The rows of one scan: the first decides the parser, which reads them all. */
class Rows {
  parser: RowParser<ParsedFile | PackedPrices> | null = null;
  firstRow: { name: string; row: XmlNode } | null = null;

  constructor(
    private readonly nameKind: Kind | null,
    private readonly pack: { memo: ProductMemo | null } | null,
    private readonly documentLength: number,
  ) {}

  readonly onRow: RowHandler = (rowName, row, path) => {
    if (!this.parser) {
      this.firstRow = { name: rowName, row: rowNode(row) };
      const kind = kindOfRow(rowName, this.firstRow.row) ?? this.nameKind;
      if (!kind) throw new FileRejectedError("unknown-kind", `cannot tell what <${rowName}> rows hold and the file name does not say`);
      this.parser = parserFor(kind, this.pack, this.documentLength);
    }
    this.parser.row(row, path);
  };
}

const kindOfType = (type: FileType): Kind => (type === "stores" ? "stores" : type.startsWith("price") ? "prices" : "promos");

