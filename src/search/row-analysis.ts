import { classifyWords, manufacturerCategories, wordCategories } from "./categories.ts";
import type { ProductRow } from "./documents.ts";
import { analyzeName, searchTerms } from "./hebrew.ts";
import { hashString } from "./query.ts";
import { SIZE_UNIT_CODES } from "./search-index.ts";

/** Words of manufacturer names that tell products apart from nothing (בע"מ, Ltd, לא ידוע). */
const BRAND_STOP = new Set(["בעמ", "ltd", "inc", "llc", "gmbh", "ושות", "חברת", "לא", "ידוע", "כללי", "unknown", "יבואנ", "יבוא"]);

/**
 * A chunk of product rows, analysed: everything the index builder needs of them that does not
 * depend on the index being built, in typed arrays and string lists (cheap to post from a worker).
 * Terms and manufacturers are numbered in the order first met, across the batches of one build.
 */
export interface AnalysedBatch {
  /** Terms first met in this batch, in the order of their ids (which follow the earlier batches'). */
  terms: string[];
  /** Manufacturers first met, in the order of their ids: the term ids of each one's words that tell products apart. */
  brands: number[][];
  productIds: Int32Array;
  /** Manufacturer id, -1 for none (no manufacturer, or a grouped item). */
  brandIds: Int32Array;
  /** 1 for a generic product (`scope_chain_id` < 0). */
  generic: Uint8Array;
  /** Stores selling it, all chains together. */
  storeCounts: Float64Array;
  sizeAmounts: Float64Array;
  /** `SIZE_UNIT_CODES`, 0 unknown. */
  sizeUnits: Uint8Array;
  /** Items in a pack (0: not a pack), at most 65535. */
  packs: Uint16Array;
  /** `hashString` of the name's exact-name key (0 for a grouped item). */
  nameHashes: Uint32Array;
  /** The stored category, or the classifier's when the column is empty. */
  categories: string[];
  /** `ProductRow.chains`, as read. */
  chains: string[];
  barcodeKeys: string[];
  /**
   * The products' words, one after another: per product, the number of its name's terms and
   * their ids (none for a grouped item: its generic product answers for its names), then the
   * number of its other names and for each one the number of its terms, their ids and the
   * `hashString` of its exact-name key (as a signed 32-bit integer).
   */
  words: Int32Array;
}

/** A manufacturer as analysed once per build. */
interface Brand {
  id: number;
  /** `manufacturerCategories` of its terms. */
  categories: number[];
}

const NO_CATEGORIES: readonly number[] = [];

/**
 * Analyses product rows for the index builder, batch after batch of one build: each name once
 * (`analyzeName`), each distinct term's categories once, each manufacturer once. Runs in the
 * rebuild's worker (rebuild-worker.ts) beside the serving thread, or on that thread for an
 * in-memory database.
 *
 * @example const analyser = new RowAnalyser(); for await (const rows of readProducts(db, 1024)) post(analyser.analyse(rows))
 */
export class RowAnalyser {
  private readonly termIds = new Map<string, number>();
  /** `wordCategories` of each term, by id. */
  private readonly termCategories: number[][] = [];
  private readonly brandsByName = new Map<string, Brand>();
  private newTerms: string[] = [];
  private newBrands: number[][] = [];
  private words: number[] = [];

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.termCategories.length;
      this.termIds.set(term, id);
      this.termCategories.push(wordCategories(term));
      this.newTerms.push(term);
    }
    return id;
  }

  private brand(manufacturer: string): Brand {
    let brand = this.brandsByName.get(manufacturer);
    if (!brand) {
      const terms = searchTerms(manufacturer).filter((t) => !BRAND_STOP.has(t));
      brand = { id: this.brandsByName.size, categories: manufacturerCategories(terms) };
      this.brandsByName.set(manufacturer, brand);
      this.newBrands.push(terms.map((t) => this.termId(t)));
    }
    return brand;
  }

  analyse(rows: readonly ProductRow[]): AnalysedBatch {
    const n = rows.length;
    const batch: AnalysedBatch = {
      terms: [],
      brands: [],
      productIds: new Int32Array(n),
      brandIds: new Int32Array(n),
      generic: new Uint8Array(n),
      storeCounts: new Float64Array(n),
      sizeAmounts: new Float64Array(n),
      sizeUnits: new Uint8Array(n),
      packs: new Uint16Array(n),
      nameHashes: new Uint32Array(n),
      categories: new Array<string>(n),
      chains: new Array<string>(n),
      barcodeKeys: new Array<string>(n),
      words: new Int32Array(0),
    };
    const words = this.words;
    words.length = 0;
    const termCategories: (readonly number[])[] = [];
    for (let p = 0; p < n; p++) {
      const row = rows[p]!;
      const grouped = row.grouped === 1;
      const analysed = analyzeName(row.name);
      const { key, quantity } = analysed;
      const ids = analysed.terms.map((t) => this.termId(t));
      const brand = row.manufacturer && !grouped ? this.brand(row.manufacturer) : null;
      // A grouped item keeps its row (barcode, filters) but no words: its generic product answers for them.
      if (grouped) words.push(0);
      else words.push(ids.length, ...ids);
      if (row.other_names && !grouped) {
        const names = row.other_names.split("\n");
        words.push(names.length);
        for (const name of names) {
          const other = analyzeName(name);
          words.push(other.terms.length);
          for (const t of other.terms) words.push(this.termId(t));
          words.push(hashString(other.key) | 0);
        }
      } else {
        words.push(0);
      }

      let sizeAmount = row.size_amount ?? 0;
      let sizeUnit = row.size_unit ? (SIZE_UNIT_CODES[row.size_unit] ?? 0) : 0;
      let pack = row.qty_in_package && row.qty_in_package > 1 ? Math.round(row.qty_in_package) : 0;
      if ((!sizeAmount || !sizeUnit) && quantity) {
        sizeAmount = quantity.amount;
        sizeUnit = SIZE_UNIT_CODES[quantity.unit]!;
        pack = quantity.pack ?? 0;
      }
      // The name's pack count (4*150 גרם) when the stored size left it out.
      if (pack === 0 && quantity?.pack && quantity.pack > 1) pack = quantity.pack;
      termCategories.length = 0;
      for (const id of ids) termCategories.push(this.termCategories[id]!);
      batch.productIds[p] = row.id;
      batch.brandIds[p] = brand ? brand.id : -1;
      batch.generic[p] = row.scope_chain_id < 0 ? 1 : 0;
      batch.storeCounts[p] = row.stores ?? 0;
      batch.sizeAmounts[p] = sizeAmount;
      batch.sizeUnits[p] = sizeUnit;
      batch.packs[p] = Math.min(pack, 65535);
      batch.nameHashes[p] = grouped ? 0 : hashString(key);
      batch.categories[p] = row.category ?? classifyWords(analysed.terms, termCategories, brand ? brand.categories : NO_CATEGORIES);
      batch.chains[p] = row.chains ?? "";
      batch.barcodeKeys[p] = row.barcode_key;
    }
    batch.words = Int32Array.from(words);
    batch.terms = this.newTerms;
    batch.brands = this.newBrands;
    this.newTerms = [];
    this.newBrands = [];
    return batch;
  }
}

/**
 * The buffers of a batch's typed arrays, to transfer with it.
 *
 * @example worker.postMessage(batch, transferables(batch))
 */
export function transferables(batch: AnalysedBatch): ArrayBuffer[] {
  return [batch.productIds, batch.brandIds, batch.generic, batch.storeCounts, batch.sizeAmounts, batch.sizeUnits, batch.packs, batch.nameHashes, batch.words].map((a) => a.buffer as ArrayBuffer);
}
