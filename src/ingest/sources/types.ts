import type { Chain, Portal } from "../../registry.ts";
import type { FileType } from "../records.ts";
import type { HttpClient } from "./http.ts";

/** One file a portal lists, with what its name says and how to download it. */
export interface ListedFile {
  /** Bare file name as published (no folder), e.g. `PriceFull7290027600007-001-202401010300.gz`. */
  fileName: string;
  /** From the name; null when the name is not a price-transparency file name. */
  type: FileType | null;
  /** Chain code from the name, leading zeros stripped; null when absent. */
  chainCode: string | null;
  /** Store code from the name, leading zeros stripped; null for chain-wide files. */
  storeCode: string | null;
  /** ISO 8601 with the Israel offset: the name's timestamp, else the listing's. */
  time: string | null;
  /** Bytes when the portal says (exact or approximate, see sizeExact). */
  size: number | null;
  /** True when `size` is an exact byte count (Cerberus), false for "562.84 KB"-style sizes. */
  sizeExact: boolean;
  /** `NULL`-prefixed "nothing changed" placeholder. */
  isNullPlaceholder: boolean;
  /** The download recipe: the URL the adapter fetches (possibly through an indirection). */
  url: string;
  /** Adapter-private details needed to download or refresh the link. */
  extra?: Record<string, string>;
}

export interface ListOptions {
  /** Israel-local date `YYYY-MM-DD` whose files are wanted. */
  date: string;
  /** Whether Price/Promo deltas are wanted too (some portals list them separately). */
  deltas: boolean;
}

/** What every portal family implements. One instance serves one chain on one portal. */
export interface PortalAdapter {
  readonly family: Portal["family"];
  /** True when `list` returns only the asked day's files (or those from it on): earlier days are listed on their own. */
  readonly listsByDate?: boolean;
  /** Lists the files the portal offers for the day (may include other days; the caller filters). */
  list(options: ListOptions): Promise<ListedFile[]>;
  /** Downloads one listed file; resolves to a Response whose body is the file. */
  download(file: ListedFile, signal?: AbortSignal): Promise<Response>;
  /** Releases connections (FTP). */
  close?(): Promise<void>;
}

export interface AdapterContext {
  chain: Chain;
  portal: Portal;
  http: HttpClient;
  log: SourceLog;
}

export type SourceLog = (level: "debug" | "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;

export class PortalError extends Error {
  override name = "PortalError";
}
