import { normaliseCode } from "../../registry.ts";
import type { ListedFile } from "./types.ts";

export interface Selection {
  /** Files to download, oldest first (fulls before the deltas that follow them). */
  files: ListedFile[];
  /** Why listed files were left out, counted by reason. */
  dropped: Record<string, number>;
}

export interface SelectWindow {
  /** First Israel-local day (`YYYY-MM-DD`) whose files are kept; default `date` alone. */
  earliest?: string;
  /**
   * Per file key (see fileKey) the publication time of the newest file already fetched: older
   * files of that key are never fetched again (a newer full file is never overwritten by an
   * older one), and a key with none fetched gets only its newest file of the window.
   */
  newestFetched?: Map<string, string>;
}

/**
 * What a full file replaces: the chain code's Stores list, or one store's PriceFull/PromoFull.
 * Deltas are keyed by their full file's key.
 * @example fileKey(listedFile("PriceFull7290027600007-001-202611220300.gz", "")) // "pricefull:7290027600007:1"
 */
export function fileKey(file: Pick<ListedFile, "type" | "chainCode" | "storeCode">): string {
  if (file.type === "stores") return `stores:${file.chainCode ?? ""}`;
  const full = file.type === "price" ? "pricefull" : file.type === "promo" ? "promofull" : file.type;
  return `${full}:${file.chainCode ?? ""}:${file.storeCode ?? ""}`;
}

/**
 * The download policy. Of the listed files, keeps those of the chain (by the chain code in the
 * name; stray files of other chains are dropped) dated from `window.earliest` to `date` (Israel
 * local; default `date` alone), then: per day, the newest Stores file per chain code and the
 * newest PriceFull and PromoFull per store — all of those days when the key was fetched before
 * and they are newer than what was (a late publication of an earlier day is not lost), else the
 * newest of the window only — and, when `deltas`, every Price/Promo of the store newer than its
 * newest chosen full file (`NULL` placeholders included, as they may carry rows). `NULL` files
 * never stand in for a full file. Stores files are published when the stores change, not daily:
 * a chain code with none in the window gets its newest earlier one still listed.
 *
 * @example selectFiles(listing, ["7290027600007"], "2026-11-22", false, { earliest: "2026-11-20" }).files.map((f) => f.fileName)
 */
export function selectFiles(listing: ListedFile[], chainCodes: string[], date: string, deltas: boolean, window: SelectWindow = {}): Selection {
  const earliest = window.earliest ?? date;
  const fetched = window.newestFetched ?? new Map<string, string>();
  const codes = new Set(chainCodes.map(normaliseCode));
  const dropped: Record<string, number> = {};
  const drop = (reason: string, n = 1) => (dropped[reason] = (dropped[reason] ?? 0) + n);
  /** key → day → newest file of that day. */
  const newest = new Map<string, Map<string, ListedFile>>();
  const deltaFiles: ListedFile[] = [];
  const seen = new Set<string>();
  /** Newest Stores file listed before the window, per chain code. */
  const earlierStores = new Map<string, ListedFile>();

  for (const file of listing) {
    if (seen.has(file.fileName)) {
      drop("duplicate");
      continue;
    }
    seen.add(file.fileName);
    if (!file.type) {
      drop("not a price file");
      continue;
    }
    if (file.chainCode && !codes.has(file.chainCode)) {
      drop("other chain");
      continue;
    }
    const day = file.time?.slice(0, 10);
    if (!file.time || !day || day > date || day < earliest) {
      const key = file.chainCode ?? "";
      const earlier = earlierStores.get(key);
      if (file.type === "stores" && !file.isNullPlaceholder && day && day < earliest && (!earlier || file.time! > earlier.time!)) {
        earlierStores.set(key, file);
      }
      drop("other day");
      continue;
    }
    const isDelta = file.type === "price" || file.type === "promo";
    if (isDelta) {
      if (deltas) deltaFiles.push(file);
      else drop("delta");
      continue;
    }
    if (file.isNullPlaceholder) {
      drop("NULL placeholder");
      continue;
    }
    const key = fileKey(file);
    const days = newest.get(key) ?? new Map<string, ListedFile>();
    newest.set(key, days);
    const current = days.get(day);
    if (!current || file.time > current.time! || (file.time === current.time && file.fileName > current.fileName)) {
      if (current) drop("older");
      days.set(day, file);
    } else drop("older");
  }

  const fulls: ListedFile[] = [];
  /** key → time of the newest full file kept (deltas before it are not needed). */
  const newestKept = new Map<string, string>();
  for (const [key, days] of newest) {
    const files = [...days.values()].sort((a, b) => (a.time! < b.time! ? -1 : 1));
    const last = fetched.get(key);
    // Never fetched: its newest file is enough. Fetched: every day's newest after it, in order.
    const kept = last === undefined ? files.slice(-1) : files.filter((f) => f.time! >= last);
    const older = files.length - kept.length;
    if (older) drop(last === undefined ? "older" : "older than fetched", older);
    fulls.push(...kept);
    if (kept.length) newestKept.set(key, kept[kept.length - 1]!.time!);
  }
  for (const [code, file] of earlierStores) {
    const key = `stores:${code}`;
    if (newest.has(key)) continue;
    if (fetched.has(key) && file.time! < fetched.get(key)!) continue;
    fulls.push(file);
    dropped["other day"]!--;
  }
  const keptDeltas = deltaFiles.filter((d) => {
    const after = newestKept.get(fileKey(d)) ?? fetched.get(fileKey(d));
    const keep = !after || d.time! > after;
    if (!keep) drop("delta before full");
    return keep;
  });
  const order = (a: ListedFile, b: ListedFile) => (a.time! < b.time! ? -1 : a.time! > b.time! ? 1 : a.fileName < b.fileName ? -1 : 1);
  // Stores first so an import sees the stores before their prices.
  const stores = fulls.filter((f) => f.type === "stores").sort(order);
  const rest = fulls.filter((f) => f.type !== "stores").sort(order);
  return { files: [...stores, ...rest, ...keptDeltas.sort(order)], dropped };
}
