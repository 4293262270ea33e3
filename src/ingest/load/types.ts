import type { FileName, FileType, ParsedFile } from "../records.ts";

/** A file read and parsed, ready to load. */
export interface LoadInput {
  /** File name without folders, as published. */
  fileName: string;
  /** Size of the file as read (compressed when it was). */
  bytes: number;
  /** What the name says; null when the name is not a price-transparency name. */
  name: FileName | null;
  parsed: ParsedFile;
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
