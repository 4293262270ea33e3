import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { carries, storePrice, type ChainPlan } from "./chain-plan.ts";
import { addMinutes, type LocalTime } from "./clock.ts";
import { compress } from "./compress.ts";
import type { DialectWriter, PriceRow, RowKey, StorePromotion } from "./documents.ts";
import { ByteSink } from "./byte-sink.ts";
import { encodeText } from "./encoding.ts";
import { storeFileName, storesFileName } from "./file-names.ts";
import { profileFor, type Profile } from "./profiles.ts";
import type { DemoPromotion } from "./promotions.ts";
import type { DemoStore } from "./stores.ts";
import { binaWriter } from "./dialects/bina.ts";
import { cerberusWriter } from "./dialects/cerberus.ts";
import { matrixWriter } from "./dialects/matrix.ts";
import { modernWriter } from "./dialects/modern.ts";
import { superpharmWriter } from "./dialects/superpharm.ts";

const WRITERS: Record<Profile["dialect"], DialectWriter> = {
  cerberus: cerberusWriter,
  bina: binaWriter,
  matrix: matrixWriter,
  superpharm: superpharmWriter,
  modern: modernWriter,
};

export interface ChainOutput {
  files: string[];
  bytes: number;
  rows: { stores: number; prices: number; promotions: number; promotionItems: number };
}

/**
 * Writes a chain's files into `dir`: stores files at the start and now, then per store the
 * first PriceFull and PromoFull, a Price delta per month, and today's PriceFull and PromoFull.
 */
export function writeChain(plan: ChainPlan, dir: string): ChainOutput {
  mkdirSync(dir, { recursive: true });
  const out: ChainOutput = { files: [], bytes: 0, rows: { stores: 0, prices: 0, promotions: 0, promotionItems: 0 } };
  const { chain, timeline, history, items } = plan;

  const emit = (name: string, text: string | Uint8Array<ArrayBuffer>, profile: Profile, time: LocalTime, stores = false) => {
    const bytes = typeof text === "string" ? encodeText(text, stores ? profile.storesEncoding : profile.encoding) : text;
    const kind = stores ? profile.storesCompression : profile.compression;
    const data = compress(bytes, kind, name.replace(/\.(gz|GZ)$/, "").replace(/\.xml$/, "") + ".xml", time);
    writeFileSync(join(dir, name), data);
    out.files.push(name);
    out.bytes += data.length;
  };

  // Stores files: one per chain code (Matrix lists every code's branches in one file).
  const groups = new Map<string, DemoStore[]>();
  for (const store of plan.stores) {
    const key = plan.profile.dialect === "matrix" ? chain.chain_codes[0]! : store.code;
    groups.set(key, [...(groups.get(key) ?? []), store]);
  }
  for (const time of [timeline.storesStart, timeline.storesNow]) {
    for (const [code, stores] of groups) {
      const profile = profileFor(chain, code);
      const text = WRITERS[profile.dialect].stores({ code, chainName: chain.name, stores, time }, profile);
      emit(storesFileName(profile, code, time), text, profile, time, true);
      out.rows.stores += stores.length;
    }
  }

  const last = history.steps.length;
  // Price files are assembled here one after the other: compressed and written before the next.
  const sink = new ByteSink();
  const codeRank = codeRanks(items);
  // Stores of a chain print most item rows identically: build each row's text once per code.
  const rowCaches = new Map<string, Map<RowKey, string | Uint8Array>>();
  plan.stores.forEach((store, storeIndex) => {
    if (!rowCaches.has(store.code)) rowCaches.set(store.code, new Map());
    const rowCache = rowCaches.get(store.code)!;
    const profile = profileFor(chain, store.code);
    const writer = WRITERS[profile.dialect];
    const priceFile = (kind: "PriceFull" | "Price", time: LocalTime, rows: PriceRow[], nullPrefix = false) => {
      const text = writer.prices({ code: store.code, store, rows, time, rowCache, encoding: profile.encoding, sink }, profile);
      emit(storeFileName(profile, kind, store.code, store, time, { nullPrefix }), text, profile, time);
      out.rows.prices += rows.length;
    };
    const promoFile = (time: LocalTime, promotions: DemoPromotion[], onSale: (i: number) => boolean, prices: Int32Array, empty = false) => {
      const list = empty ? [] : storePromotions(plan, store, promotions, onSale, prices, time);
      const text = writer.promos({ code: store.code, store, promotions: list, time }, profile);
      emit(storeFileName(profile, "PromoFull", store.code, store, time), text, profile, time);
      out.rows.promotions += list.length;
      out.rows.promotionItems += list.reduce((n, p) => n + p.items.length, 0);
    };

    // The first snapshot.
    const start = timeline.start;
    const startRows: PriceRow[] = [];
    for (let i = 0; i < items.length; i++) {
      if (!history.startSet.has(i) || !carries(plan, store, i)) continue;
      startRows.push({ index: i, item: items[i]!, price: storePrice(plan, store, i, history.pricesAt[0]![i]!, start), updated: history.updatedAt[0]![i]! });
    }
    priceFile("PriceFull", start, startRows);
    promoFile(addMinutes(start, 3), plan.promotionsStart, (i) => history.startSet.has(i), history.pricesAt[0]!, profile.noPromotions);

    // Monthly deltas: the items whose price at this store changed, and new items.
    for (let k = 1; k < last; k++) {
      const step = history.steps[k - 1]!;
      const before = history.pricesAt[k - 1]!;
      const after = history.pricesAt[k]!;
      const rows: PriceRow[] = [];
      const previousTime = k === 1 ? start : history.steps[k - 2]!.time;
      for (const [i] of step.changes) {
        if (!carries(plan, store, i)) continue;
        const price = storePrice(plan, store, i, after[i]!, step.time);
        if (price === storePrice(plan, store, i, before[i]!, previousTime)) continue;
        rows.push({ index: i, item: items[i]!, price, updated: history.updatedAt[k]![i]! });
      }
      for (const [i] of step.launches) {
        if (carries(plan, store, i)) rows.push({ index: i, item: items[i]!, price: storePrice(plan, store, i, after[i]!, step.time), updated: history.updatedAt[k]![i]! });
      }
      rows.sort((a, b) => codeRank[a.index]! - codeRank[b.index]!);
      // Carrefour once published an empty delta for a store (the next full catches up).
      const empty = profile.emptyDelta === true && storeIndex === 0 && k === 5;
      priceFile("Price", step.time, empty ? [] : rows, profile.nullDeltas === true);
      if (profile.nullPromoPlaceholders) {
        const time = addMinutes(step.time, 7);
        const text = writer.promos({ code: store.code, store, promotions: [], time }, profile);
        emit(storeFileName({ ...profile, layout: "legacy", ext: ".xml" }, "Promo", store.code, store, time, { nullPrefix: true }), text, { ...profile, compression: "none" }, time);
      }
    }

    // Today's snapshot.
    const current = history.steps[last - 1]!.time;
    const onSaleNow = (i: number) => (history.startSet.has(i) || history.steps.some((s) => s.launches.has(i))) && !history.delisted.has(i);
    const nowRows: PriceRow[] = [];
    for (let i = 0; i < items.length; i++) {
      if (!onSaleNow(i) || !carries(plan, store, i)) continue;
      nowRows.push({ index: i, item: items[i]!, price: storePrice(plan, store, i, history.pricesAt[last]![i]!, current), updated: history.updatedAt[last]![i]! });
    }
    priceFile("PriceFull", current, nowRows);
    const emptyNow = profile.noPromotions === true || (profile.emptyPromoStore === true && storeIndex === plan.stores.length - 1);
    promoFile(addMinutes(current, 3), plan.promotionsNow, onSaleNow, history.pricesAt[last]!, emptyNow);
  });
  return out;
}

function storePromotions(plan: ChainPlan, store: DemoStore, promotions: DemoPromotion[], onSale: (i: number) => boolean, prices: Int32Array, at: LocalTime): StorePromotion[] {
  const out: StorePromotion[] = [];
  for (const promotion of promotions) {
    if (promotion.stores && !promotion.stores.has(store.id)) continue;
    const items = promotion.items
      .filter(({ index }) => onSale(index) && carries(plan, store, index))
      .map(({ index, gift }) => ({ item: plan.items[index]!, gift, price: storePrice(plan, store, index, prices[index]!, at) }));
    if (items.length === 0 || items.every((i) => i.gift)) continue;
    out.push({ promotion, items });
  }
  return out;
}

/** Per item index, its place in item-code order (equal codes, equal places): delta rows are sorted by code. */
function codeRanks(items: ChainPlan["items"]): Int32Array {
  const order = items.map((_, i) => i).sort((a, b) => (items[a]!.code < items[b]!.code ? -1 : items[a]!.code > items[b]!.code ? 1 : 0));
  const rank = new Int32Array(items.length);
  for (let k = 1; k < order.length; k++) rank[order[k]!] = items[order[k]!]!.code === items[order[k - 1]!]!.code ? rank[order[k - 1]!]! : k;
  return rank;
}
