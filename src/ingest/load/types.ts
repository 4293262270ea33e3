import type { FileName, FileType, ParsedFile, PromosFile, StoresFile } from "../records.ts";
import type { PriceList } from "./price-rows.ts";

/** What the loader reads: price lists through PriceRows, the other kinds as parsed. */
export type LoadableFile = StoresFile | PromosFile | PriceList;

/** "stores" | "prices" | "promos" of a parsed or loadable file. */
export function contentKind(parsed: ParsedFile | PriceList): ParsedFile["kind"] {
  return parsed.kind === "price-rows" ? "prices" : parsed.kind;
}

/** A file read and parsed, ready to load. */
export interface LoadInput {
  /** File name without folders, as published. */
  fileName: string;
  /** Size of the file as read (compressed when it was). */
  bytes: number;
  /** What the name says; null when the name is not a price-transparency name. */
  name: FileName | null;
  /** Parsed records, or a price list packed by a parse worker. */
  parsed: ParsedFile | PriceList;
  /** The content was cut short (truncated gzip or XML): loaded rows are real, but the list is incomplete. */
  partial: boolean;
  warnings: string[];
}

export type FileStatus = "ok" | "partial" | "rejected" | "skipped";

/** What happened to one file (one row of the run's report). */
export interface FileOutcome {
  type: FileType | null;
  chainCode: string | null;
  chainSlug: string | null;
  storeCode: string | null;
  fileTime: string | null;
  /** Records loaded: stores, price rows or promotions. */
  rows: number;
  status: FileStatus;
  reason: string | null;
  warnings: string[];
  /** A file over 1 KB that parsed to no rows (flags chain_health.zero_rows). */
  zeroRows: boolean;
  /** Loader figures (inserted/changed/removed prices, promotions written, …). */
  counts: Record<string, number>;
}
