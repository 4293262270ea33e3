import { PrebuiltJson } from "../../http/prebuilt/prebuilt-json.ts";
import { unfilledBytes } from "../../http/prebuilt/gzip-answer.ts";

/**
 * A store-granularity /prices/ answer as it is cached: its `data` held deflated only
 * (PrebuiltJson.compact: ≈70 KB for 2,000 stores instead of ≈1 MB), and where each entry lies in
 * its text, so a page of entries (`limit`, `cursor`) is cut out of the same answer — every page of
 * one walk comes from the one list.
 */
export interface StoreEntries {
  json: PrebuiltJson;
  /**
   * Byte offset of each entry in the JSON text, and one more: where a next entry would start
   * (after the last entry's end and one comma's width), so entry i is [bounds[i], bounds[i+1] - 1).
   */
  bounds: Uint32Array;
  /** Each entry's store (db id), in order: a cursor names the store its page ended on (see pageOf). */
  storeIds: Int32Array;
}

const encoder = new TextEncoder();
const PAGE_CLOSE = encoder.encode("]}");

/**
 * The answer's `data`: `head`, an object whose last field is an empty array (the entries' place),
 * with the entries in it — each JSON: `prefix` (UTF-8) then `rest` (text) — written into one
 * buffer, then deflated.
 */
export function storeEntries(head: object, entries: readonly { prefix: Uint8Array; rest: string; storeId: number }[]): StoreEntries {
  const headText = JSON.stringify(head);
  if (!headText.endsWith("[]}")) throw new Error("storeEntries: the head must end with an empty array");
  let chars = headText.length + entries.length;
  for (const e of entries) chars += e.prefix.length + e.rest.length;
  // UTF-8 takes at most 3 bytes per UTF-16 unit; the buffer is dropped once deflated.
  const out = unfilledBytes(chars * 3);
  let at = encoder.encodeInto(headText.slice(0, -2), out).written;
  const bounds = new Uint32Array(entries.length + 1);
  const storeIds = new Int32Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    if (i) out[at++] = 0x2c; // ,
    bounds[i] = at;
    const entry = entries[i]!;
    storeIds[i] = entry.storeId;
    out.set(entry.prefix, at);
    at += entry.prefix.length;
    at += encoder.encodeInto(entry.rest, out.subarray(at)).written;
  }
  bounds[entries.length] = entries.length === 0 ? at : at + 1;
  out[at++] = 0x5d; // ]
  out[at++] = 0x7d; // }
  return { json: PrebuiltJson.compact(out.subarray(0, at)), bounds, storeIds };
}

/** Entries [from, to) of the answer as a `data` of their own (the same head, those entries only). */
export function pageOf(answer: StoreEntries, from: number, to: number): PrebuiltJson {
  const text = answer.json.bytes;
  const headEnd = answer.bounds[0]!;
  const start = answer.bounds[from]!;
  const end = to > from ? answer.bounds[to]! - 1 : start;
  const out = new Uint8Array(headEnd + (end - start) + PAGE_CLOSE.length);
  out.set(text.subarray(0, headEnd), 0);
  out.set(text.subarray(start, end), headEnd);
  out.set(PAGE_CLOSE, headEnd + end - start);
  return PrebuiltJson.fromBytes(out);
}

/** Bytes a cached store answer holds: its deflated text and its index. */
export function storeEntriesWeight(answer: StoreEntries): number {
  return answer.json.heldBytes + answer.bounds.byteLength + answer.storeIds.byteLength;
}
