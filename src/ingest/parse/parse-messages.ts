import type { FileName, ParsedFile } from "../records.ts";
import type { PackedPrices } from "./packed.ts";
import type { PriceList } from "../load/price-rows.ts";

export interface ParseRequest {
  id: number;
  path: string;
  fileName: string;
  maxBytes: number;
}

/** A file read and parsed (or why not), with the time each step took. */
export type ParseReply =
  | {
      id: number;
      ok: true;
      bytes: number;
      name: FileName | null;
      /** Packed on a worker; a PriceList once unpacked by the pool. */
      parsed: ParsedFile | PackedPrices | PriceList;
      partial: boolean;
      warnings: string[];
      readMs: number;
      parseMs: number;
    }
  | { id: number; ok: false; bytes: number; reason: string; readMs: number; parseMs: number };
