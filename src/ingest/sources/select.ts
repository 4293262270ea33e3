import { normaliseCode } from "../../registry.ts";
import type { ListedFile } from "./types.ts";

export interface Selection {
  /** Files to download, oldest first (fulls before the deltas that follow them). */
  files: ListedFile[];
  /** Why listed files were left out, counted by reason. */
  dropped: Record<string, number>;
}

/**
 * The download policy. Of the listed files, keeps those of the chain (by the chain code in the
 * name; stray files of other chains are dropped) dated on `date` (Israel local), then:
 * the newest Stores file per chain code, the newest PriceFull and PromoFull per store, and —
 * when `deltas` — every Price/Promo of the store newer than its chosen full file (`NULL`
 * placeholders included, as they may carry rows). `NULL` files never stand in for a full file.
 * Stores files are published when the stores change, not daily: a chain code with none on
 * `date` gets its newest earlier one still listed.
 *
 * @example selectFiles(listing, ["7290027600007"], "2026-11-22", false).files.map((f) => f.fileName)
 */
export function selectFiles(listing: ListedFile[], chainCodes: string[], date: string, deltas: boolean): Selection {
  const codes = new Set(chainCodes.map(normaliseCode));
  const dropped: Record<string, number> = {};
  const drop = (reason: string) => (dropped[reason] = (dropped[reason] ?? 0) + 1);
  const newest = new Map<string, ListedFile>();
  const deltaFiles: ListedFile[] = [];
  const seen = new Set<string>();
  /** Newest Stores file listed before `date`, per chain code. */
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
    if (!file.time || file.time.slice(0, 10) !== date) {
      const key = file.chainCode ?? "";
      const earlier = earlierStores.get(key);
      if (file.type === "stores" && !file.isNullPlaceholder && file.time && file.time.slice(0, 10) < date && (!earlier || file.time > earlier.time!)) {
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
    const key = file.type === "stores" ? `stores:${file.chainCode ?? ""}` : `${file.type}:${file.chainCode ?? ""}:${file.storeCode ?? ""}`;
    const current = newest.get(key);
    if (!current || file.time > current.time! || (file.time === current.time && file.fileName > current.fileName)) {
      if (current) drop("older");
      newest.set(key, file);
    } else drop("older");
  }

  for (const [code, file] of earlierStores) {
    if (newest.has(`stores:${code}`)) continue;
    newest.set(`stores:${code}`, file);
    dropped["other day"]!--;
  }
  const fulls = [...newest.values()];
  const keptDeltas = deltaFiles.filter((d) => {
    const full = newest.get(`${d.type}full:${d.chainCode ?? ""}:${d.storeCode ?? ""}`);
    const keep = !full || d.time! > full.time!;
    if (!keep) drop("delta before full");
    return keep;
  });
  const order = (a: ListedFile, b: ListedFile) => (a.time! < b.time! ? -1 : a.time! > b.time! ? 1 : a.fileName < b.fileName ? -1 : 1);
  // Stores first so an import sees the stores before their prices.
  const stores = fulls.filter((f) => f.type === "stores").sort(order);
  const rest = fulls.filter((f) => f.type !== "stores").sort(order);
  return { files: [...stores, ...rest, ...keptDeltas.sort(order)], dropped };
}
