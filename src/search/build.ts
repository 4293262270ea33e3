import type { Database } from "bun:sqlite";
import MiniSearch from "minisearch";
import { aliasTerms } from "./aliases.ts";
import { CATEGORIES, OTHER } from "./categories.ts";
import { readDataVersion, yieldToLoop } from "./documents.ts";
import { BarcodeIndex } from "./barcodes.ts";
import { analysedBatches } from "./rebuild-batches.ts";
import type { AnalysedBatch } from "./row-analysis.ts";
import { SearchIndex, type IndexedDoc, type ProductTable } from "./search-index.ts";
import { Vocabulary, type TermFacts } from "./vocabulary.ts";
import { IndexWriter, type TermSlot } from "./writer.ts";

/** Documents are handed to MiniSearch pre-analysed: the tokenizer only splits on spaces. */
const splitTerms = (text: string) => (text === "" ? [] : text.split(" "));
const sameTerm = (term: string) => term;

/**
 * A new, empty MiniSearch with the service's options (documents arrive pre-analysed, terms joined by spaces).
 *
 * @example const engine = newEngine(); new IndexWriter(engine, ["name", "brand", "nameAlt"]).add({ id: 0, name: "במבה", brand: "אסמ", nameAlt: "" })
 */
export function newEngine(): MiniSearch<IndexedDoc> {
  return new MiniSearch<IndexedDoc>({
    idField: "id",
    fields: ["name", "brand", "nameAlt"],
    storeFields: [],
    tokenize: splitTerms,
    processTerm: sameTerm,
    searchOptions: { tokenize: splitTerms, processTerm: sameTerm },
  });
}

export interface BuildOptions {
  /** Rows read per SQLite chunk on the serving thread (then the event loop runs; see rebuild-batches.ts). */
  readChunk?: number;
  /** Milliseconds of indexing between two turns of the event loop. */
  sliceMs?: number;
  /** Rankings cached per index for further pages (0: none, as the bench measures). */
  cacheEntries?: number;
  /**
   * Called between slices with the slice's length (ms) instead of just yielding to the event
   * loop: lets the caller pace a rebuild while the server is busy (see createApp).
   */
  pace?: (workedMs: number) => Promise<void>;
  /** Aborts the build between slices (the holder stopped: its database is about to close). */
  signal?: AbortSignal;
}

/** Indexing runs in slices this long, so a request waits at most about this long for the CPU. */
const SLICE_MS = 10;
/**
 * Products read per query. A chunk's read and the slice after it run without a turn of the
 * event loop between them: 500 of the demo's most widely sold products took 7–20 ms to read.
 */
const READ_CHUNK = 128;
/** Products the rebuild's worker reads and analyses per batch it posts (it holds no event loop up). */
const WORKER_CHUNK = 1024;

/**
 * The chain ids of a comma-separated list (`ProductRow.chains`), in order, written into `out`
 * (reused: the table keeps the lists as read, a few bytes a product instead of an array).
 *
 * @example chainIdsOf("3,12", []) // → [3, 12]
 */
function chainIdsOf(list: string, out: number[]): number[] {
  out.length = 0;
  let id = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list.charCodeAt(i);
    if (c === 44) (out.push(id), (id = 0));
    else if (c >= 48 && c <= 57) id = id * 10 + (c - 48);
    else return list.split(",").map(Number); // not a list of plain ids (never written so): as it says
  }
  if (list.length > 0) out.push(id);
  return out;
}

/** Accumulates the per-product arrays while documents are prepared. */
class TableBuilder {
  readonly productIds: number[] = [];
  readonly categoryCodes: number[] = [];
  readonly categories = CATEGORIES.map((c) => c.slug);
  readonly chainBit = new Map<number, number>();
  /** `chains.id` of the chains selling each product, as read (comma-separated; see `chainIdsOf`). */
  readonly chainLists: string[] = [];
  /** Stores selling each product (all chains). */
  readonly storeCounts: number[] = [];
  readonly sizeAmounts: number[] = [];
  readonly sizeUnits: number[] = [];
  readonly packs: number[] = [];
  readonly nameHashes: number[] = [];
  /** 1 for a generic product (loose produce grouped across chains), ranked before the items it groups. */
  readonly generic: number[] = [];
  /** Exact-name hashes of the other published names → dense positions. */
  readonly otherNames = new Map<number, number | number[]>();
  /** Per product, the id of its name's first word (number key) in `headTerms` (-1: none); ids renumbered in sorted order by finish(). */
  readonly heads: number[] = [];
  readonly headIds = new Map<string, number>();
  readonly headTerms: string[] = [];
  readonly barcodes = new BarcodeIndex();

  constructor(chainIds: number[]) {
    chainIds.forEach((id, bit) => this.chainBit.set(id, bit));
  }

  categoryCode(slug: string): number {
    let code = this.categories.indexOf(slug);
    if (code >= 0) return code;
    // A slug the table does not know (set by hand): kept as it is, up to what a byte holds.
    if (this.categories.length >= 255) return this.categories.indexOf(OTHER);
    code = this.categories.push(slug) - 1;
    return code;
  }

  /** The id of a head word, added when new. */
  headId(term: string): number {
    let id = this.headIds.get(term);
    if (id === undefined) this.headIds.set(term, (id = this.headTerms.push(term) - 1));
    return id;
  }

  /** Head words sorted (a prefix's words are then one range of ids) and the products' ids renumbered. */
  private sortedHeads(): { heads: Int32Array; headTerms: string[] } {
    const headTerms = [...this.headTerms].sort();
    const rank = new Int32Array(this.headTerms.length);
    headTerms.forEach((term, sorted) => (rank[this.headIds.get(term)!] = sorted));
    return { heads: Int32Array.from(this.heads, (id) => (id < 0 ? -1 : rank[id]!)), headTerms };
  }

  /**
   * The per-product arrays, built in steps (a generator: the caller lets the event loop turn
   * between steps — at 100,000 products the whole took ~50 ms in one go).
   */
  *finish(): Generator<void, ProductTable> {
    const n = this.productIds.length;
    const ids: number[] = [];
    for (const list of this.chainLists) for (const id of chainIdsOf(list, ids)) if (!this.chainBit.has(id)) this.chainBit.set(id, this.chainBit.size);
    yield;
    const words = Math.max(1, Math.ceil(this.chainBit.size / 32));
    const chainWords = new Uint32Array(n * words);
    const popularity = new Float32Array(n);
    for (let dense = 0; dense < n; dense++) {
      const list = chainIdsOf(this.chainLists[dense]!, ids);
      for (const id of list) {
        const bit = this.chainBit.get(id)!;
        chainWords[dense * words + (bit >>> 5)]! |= 1 << (bit & 31);
      }
      // Ties go to the widely sold: the number of chains, then of stores.
      popularity[dense] = 1 + 0.02 * Math.log2(1 + list.length) + 0.005 * Math.log2(1 + this.storeCounts[dense]!);
      if ((dense & 16383) === 16383) yield;
    }
    yield;
    const productIds = Int32Array.from(this.productIds);
    const categoryCodes = Uint8Array.from(this.categoryCodes);
    const sizeAmounts = Float64Array.from(this.sizeAmounts);
    yield;
    const sizeUnits = Uint8Array.from(this.sizeUnits);
    const packs = Uint16Array.from(this.packs);
    const nameHashes = Uint32Array.from(this.nameHashes);
    const generic = Uint8Array.from(this.generic);
    yield;
    const heads = this.sortedHeads();
    return { productIds, categoryCodes, categories: this.categories, chainWords, words, chainBit: this.chainBit, sizeAmounts, sizeUnits, packs, nameHashes, generic, otherNames: this.otherNames, ...heads, popularity };
  }
}

/** A manufacturer's search terms (what tells products apart), as prepared once per build. */
interface BrandFacts {
  terms: string[];
  facts: TermFacts[];
  /** Some alias spelling starts with one of its terms. */
  aliasStart: boolean;
}

/** The term slots of a document's fields (name, brand, nameAlt), as IndexWriter#addSlots takes them; reused from one product to the next. */
type DocumentFields = [TermSlot[], TermSlot[], TermSlot[]];

const NO_BRAND: BrandFacts = { terms: [], facts: [], aliasStart: false };

/**
 * The terms and manufacturers of the batches (numbered in the order first met, see
 * row-analysis.ts) → their facts, each prepared once, when a document first holds it.
 */
class BatchTerms {
  private readonly terms: string[] = [];
  private readonly facts: (TermFacts | undefined)[] = [];
  private readonly brandTerms: number[][] = [];
  private readonly brands: (BrandFacts | undefined)[] = [];

  constructor(private readonly words: Vocabulary) {}

  /** Takes in the terms and manufacturers a batch meets first. */
  add(batch: AnalysedBatch): void {
    for (const term of batch.terms) this.terms.push(term);
    for (const ids of batch.brands) this.brandTerms.push(ids);
  }

  term(id: number): TermFacts {
    return this.facts[id] ?? (this.facts[id] = this.words.facts(this.terms[id]!));
  }

  brand(id: number): BrandFacts {
    let brand = this.brands[id];
    if (!brand) {
      const facts = this.brandTerms[id]!.map((t) => this.term(t));
      brand = this.brands[id] = { terms: facts.map((f) => f.slot.term), facts, aliasStart: facts.some((f) => f.aliasStart) };
    }
    return brand;
  }
}

/** A document's own terms and its other names' words, reused from one product to the next. */
interface Scratch {
  name: TermFacts[];
  other: TermFacts[];
}

/**
 * Product `p` of an analysed batch (its words start at `at` of `batch.words`) → the term slots
 * of its MiniSearch fields, written into `fields` (surface terms in `name`, the manufacturer's
 * other words in `brand`; prefix-letter stems, number keys, expansions and other spellings of
 * its brands in `nameAlt`) and its row of the per-product arrays. Membership of a document's
 * term sets is marked on the slots with the document's stamp instead of building sets. Returns
 * where the next product's words start.
 */
function prepare(batch: AnalysedBatch, p: number, at: number, table: TableBuilder, vocabulary: BatchTerms, words: Vocabulary, fields: DocumentFields, scratch: Scratch): number {
  const w = batch.words;
  const dense = table.productIds.length;
  // The document's own terms (its name's, then its other names'): slots stamped `own`.
  const stamp = dense + 1;
  const terms = scratch.name;
  terms.length = 0;
  for (let i = w[at++]!; i > 0; i--) {
    const f = vocabulary.term(w[at++]!);
    f.slot.own = stamp;
    terms.push(f);
  }
  const brandId = batch.brandIds[p]!;
  const brand = brandId < 0 ? NO_BRAND : vocabulary.brand(brandId);
  // A manufacturer word the name already holds is indexed once, in the name (the higher boost).
  const [nameSlots, brandOnly, alt] = fields;
  nameSlots.length = brandOnly.length = alt.length = 0;
  for (const f of terms) nameSlots.push(f.slot);
  for (const f of brand.facts) if (f.slot.own !== stamp) brandOnly.push(f.slot);
  // Other names chains publish for it: their words (those the served name lacks) and their exact-name keys.
  const otherTerms = scratch.other;
  otherTerms.length = 0;
  for (let names = w[at++]!; names > 0; names--) {
    for (let i = w[at++]!; i > 0; i--) {
      const f = vocabulary.term(w[at++]!);
      if (f.slot.own !== stamp) (f.slot.own = stamp, otherTerms.push(f));
    }
    const hash = w[at++]! >>> 0;
    const known = table.otherNames.get(hash);
    if (known === undefined) table.otherNames.set(hash, dense);
    else if (typeof known === "number") known !== dense && table.otherNames.set(hash, [known, dense]);
    else if (!known.includes(dense)) known.push(dense);
  }
  // nameAlt: the other names' words, then each word's low-boost forms the document lacks, then aliases (slots stamped `alt`).
  for (const f of otherTerms) (f.slot.alt = stamp), alt.push(f.slot);
  let aliasStart = brand.aliasStart;
  for (let l = 0; l < 2; l++) {
    for (const f of l === 0 ? terms : otherTerms) {
      const pairs = f.alt;
      for (let i = 0; i < pairs.length; i += 2) {
        const added = pairs[i + 1]!;
        if (pairs[i]!.own !== stamp && added.alt !== stamp) (added.alt = stamp), alt.push(added);
      }
      aliasStart ||= f.aliasStart;
    }
  }
  if (aliasStart) {
    const names = terms.map((f) => f.slot.term);
    for (const t of aliasTerms([names, brand.terms, otherTerms.map((f) => f.slot.term)])) {
      const added = words.slot(t);
      if (added.alt !== stamp) (added.alt = stamp), alt.push(added);
    }
  }

  table.productIds.push(batch.productIds[p]!);
  table.categoryCodes.push(table.categoryCode(batch.categories[p]!));
  table.chainLists.push(batch.chains[p]!);
  table.storeCounts.push(batch.storeCounts[p]!);
  table.sizeAmounts.push(batch.sizeAmounts[p]!);
  table.sizeUnits.push(batch.sizeUnits[p]!);
  table.packs.push(batch.packs[p]!);
  table.nameHashes.push(batch.nameHashes[p]!);
  table.generic.push(batch.generic[p]!);
  // The head noun's number key; an abbreviated head (תפו"א) stands for its first word (תפוחי → תפוח).
  const head = terms[0];
  if (head && head.headId < 0) head.headId = table.headId(head.head);
  table.heads.push(head ? head.headId : -1);
  table.barcodes.add(batch.barcodeKeys[p]!);
  return at;
}

/**
 * Builds a product index from the price database without blocking the event loop: rows are
 * read and analysed in chunks (by a worker for a database file, see rebuild-batches.ts), then
 * added to the index (IndexWriter) in time slices, each distinct word's forms prepared once
 * (Vocabulary). The result is labelled with the data version read at the start.
 *
 * @example const index = await buildSearchIndex(db); index.search({ q: "במבה", limit: 20, offset: 0 })
 */
export async function buildSearchIndex(db: Database, options: BuildOptions = {}): Promise<SearchIndex> {
  // Started by a data change, beside its other listeners (and, on a first start, right after the
  // import's reply was read): the event loop turns first.
  await yieldToLoop();
  options.signal?.throwIfAborted();
  const version = readDataVersion(db);
  const chainIds = (db.query("SELECT id FROM chains ORDER BY id").all() as { id: number }[]).map((r) => r.id);
  const table = new TableBuilder(chainIds);
  const engine = newEngine();
  const writer = new IndexWriter(engine, ["name", "brand", "nameAlt"]);
  const words = new Vocabulary(writer);
  const vocabulary = new BatchTerms(words);
  const fields: DocumentFields = [[], [], []];
  const scratch: Scratch = { name: [], other: [] };
  const sliceMs = options.sliceMs ?? SLICE_MS;
  const pace = options.pace ?? (() => yieldToLoop());
  // Analysed batches (read here or by a worker) are indexed in time slices: the event loop
  // turns at least every sliceMs.
  for await (const batch of analysedBatches(db, { chunk: options.readChunk ?? READ_CHUNK, workerChunk: options.readChunk ?? WORKER_CHUNK, signal: options.signal })) {
    vocabulary.add(batch);
    const n = batch.productIds.length;
    let p = 0;
    let at = 0;
    while (p < n) {
      const started = performance.now();
      const until = started + sliceMs;
      do {
        const dense = table.productIds.length;
        at = prepare(batch, p++, at, table, vocabulary, words, fields, scratch);
        writer.addSlots(dense, fields);
      } while (p < n && ((p & 15) !== 0 || performance.now() < until));
      await pace(performance.now() - started);
      options.signal?.throwIfAborted();
    }
  }
  const steps = table.finish();
  let step: IteratorResult<void, ProductTable>;
  for (;;) {
    const started = performance.now();
    step = steps.next();
    if (step.done) break;
    await pace(performance.now() - started);
    options.signal?.throwIfAborted();
  }
  const arrays = step.value;
  await yieldToLoop();
  return new SearchIndex(version, engine, arrays, table.barcodes, writer.fieldLengths(), options.cacheEntries);
}
