import type MiniSearch from "minisearch";

/**
 * Adds pre-analysed documents to a MiniSearch index several times faster than `MiniSearch#add`:
 * each distinct term is a `TermSlot` that holds its entry in the radix tree and its postings per
 * field once it has them, so indexing a term costs one lookup per build instead of a tree walk
 * and three map lookups per occurrence. The index ends up exactly as `add` would leave it.
 *
 * Uses MiniSearch internals of the pinned version 7.2.0 (`addDocumentId`, `addFieldLength`,
 * `_fieldIds`, `_documentCount`, `_index._tree` and its `_size`), checked in the constructor;
 * test/search/writer.test.ts compares the result with `add`.
 */
type Postings = Map<number, number>;
type TermData = Map<number, Postings>;

/** A node of MiniSearch's radix tree: edge label → child node; the empty label holds the term's data. */
type TreeNode = Map<string, TreeNode | TermData>;

interface Internals {
  addDocumentId(id: unknown): number;
  addFieldLength(shortId: number, fieldId: number, count: number, length: number): void;
  _fieldIds: Record<string, number>;
  _documentCount: number;
  _index: { _tree: TreeNode; _size: number | undefined };
}

/** The label of the entry holding a term's data (MiniSearch's `LEAF`). */
const LEAF = "";

/** A node with this many children or more gets an index of its children by first letter. */
const WIDE = 8;

/**
 * Inserts terms into MiniSearch's radix tree exactly as its `SearchableMap#fetch` (`createPath`)
 * does — the same steps in the same order, so every node lists its children in the same order —
 * only faster: letters are compared as character codes (`key[pos]` made a string per comparison:
 * Hebrew letters are not among the one-character strings the engine keeps), and the child of a
 * wide node (the root has one per letter) is found through an index by first letter instead of
 * a scan of its labels. A radix tree has at most one child per first letter, so both find the same.
 */
class TreeInserter {
  /** Wide node → first letter of a child's label → the label. */
  private readonly byFirst = new Map<TreeNode, Map<number, string>>();

  constructor(private readonly index: Internals["_index"]) {}

  /** The label of the child of `node` whose label starts with `first`, if any. */
  private childLabel(node: TreeNode, first: number): string | undefined {
    let labels = this.byFirst.get(node);
    if (!labels) {
      if (node.size < WIDE) {
        for (const k of node.keys()) if (k.charCodeAt(0) === first) return k; // the empty label (LEAF): NaN matches nothing
        return undefined;
      }
      labels = new Map();
      for (const k of node.keys()) if (k !== LEAF) labels.set(k.charCodeAt(0), k);
      this.byFirst.set(node, labels);
    }
    return labels.get(first);
  }

  /** Sets a child label of `node`, keeping the node's index (if it has one) up to date. */
  private setChild(node: TreeNode, label: string, child: TreeNode): void {
    node.set(label, child);
    this.byFirst.get(node)?.set(label.charCodeAt(0), label);
  }

  /** The data of a term, made empty when the term is new. */
  fetch(key: string): TermData {
    this.index._size = undefined;
    let node = this.index._tree;
    const keyLength = key.length;
    let pos = 0;
    while (pos < keyLength) {
      const k = this.childLabel(node, key.charCodeAt(pos));
      if (k === undefined) {
        const leafNode: TreeNode = new Map();
        this.setChild(node, key.slice(pos), leafNode);
        const data: TermData = new Map();
        leafNode.set(LEAF, data);
        return data;
      }
      const len = Math.min(keyLength - pos, k.length);
      let offset = 1;
      while (offset < len && key.charCodeAt(pos + offset) === k.charCodeAt(offset)) ++offset;
      const child = node.get(k) as TreeNode;
      if (offset === k.length) {
        node = child;
      } else {
        // A partial match: an intermediate node holds both the existing subtree and the new one.
        const intermediate: TreeNode = new Map();
        intermediate.set(k.slice(offset), child);
        this.setChild(node, key.slice(pos, pos + offset), intermediate);
        node.delete(k);
        node = intermediate;
      }
      pos += offset;
    }
    let data = node.get(LEAF) as TermData | undefined;
    if (data === undefined) node.set(LEAF, (data = new Map()));
    return data;
  }
}

/** One distinct term of the index being written (see `IndexWriter#slot`). */
export interface TermSlot {
  readonly term: string;
  /** MiniSearch's entry (field id → postings), made when the term is first indexed. */
  data: TermData | null;
  /** The postings of each field id, once the term occurs in it. */
  readonly postings: (Postings | undefined)[];
  /** Document and field it was last counted in (`doc * fields + field + 1`). */
  counted: number;
  /** Free for the caller: stamps of the document being prepared (see build.ts). */
  own: number;
  alt: number;
}

export class IndexWriter<T extends { id: number }> {
  private readonly engine: Internals;
  private readonly slots = new Map<string, TermSlot>();
  private readonly tree: TreeInserter;
  private readonly fields: { name: keyof T; id: number }[];
  private fieldCount: number;
  /** Distinct terms per document and field (`doc * fieldCount + fieldId`), as MiniSearch scores with. */
  private lengths = new Uint16Array(1024);

  /** @param fields the document properties holding space-separated terms, as the engine's `fields` */
  constructor(engine: MiniSearch<T>, fields: (keyof T & string)[]) {
    const internals = engine as unknown as Internals;
    if (typeof internals.addDocumentId !== "function" || typeof internals.addFieldLength !== "function" || !(internals._index?._tree instanceof Map)) {
      throw new Error("MiniSearch internals are not as expected (writer.ts is written for minisearch 7.2.0)");
    }
    this.engine = internals;
    this.tree = new TreeInserter(internals._index);
    this.fieldCount = Object.keys(internals._fieldIds).length;
    this.fields = fields.map((name) => {
      const id = internals._fieldIds[name];
      if (id === undefined) throw new Error(`writer.ts: ${name} is not a field of the index`);
      return { name, id };
    });
  }

  /**
   * The slot of a term: the same object for every occurrence in this build. Nothing enters the
   * index until a document holding the term is added.
   *
   * @example writer.slot("חלב") === writer.slot("חלב") // → true
   */
  slot(term: string): TermSlot {
    let slot = this.slots.get(term);
    if (!slot) this.slots.set(term, (slot = { term, data: null, postings: [], counted: 0, own: 0, alt: 0 }));
    return slot;
  }

  /**
   * Adds one document whose fields hold terms joined by single spaces.
   *
   * @example writer.add({ id: 0, name: "חלב תנובה", brand: "", nameAlt: "" })
   */
  add(doc: T): void {
    this.addSlots(
      doc.id,
      this.fields.map((field) => {
        const text = doc[field.name] as unknown as string;
        return text === "" ? [] : text.split(" ").map((term) => this.slot(term));
      }),
    );
  }

  /**
   * Adds one document given as the term slots of each field, in the order of the constructor's
   * `fields` (a term may repeat: it counts as often).
   *
   * @example writer.addSlots(0, [[writer.slot("חלב"), writer.slot("תנובה")], [], []])
   */
  addSlots(id: number, fields: readonly (readonly TermSlot[])[]): void {
    const engine = this.engine;
    const shortId = engine.addDocumentId(id);
    const fieldCount = this.fieldCount;
    if ((shortId + 1) * fieldCount > this.lengths.length) {
      const grown = new Uint16Array(this.lengths.length * 2);
      grown.set(this.lengths);
      this.lengths = grown;
    }
    for (let f = 0; f < this.fields.length; f++) {
      const fieldId = this.fields[f]!.id;
      const slots = fields[f]!;
      const stamp = shortId * fieldCount + fieldId + 1;
      let distinct = 0;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        let postings = slot.postings[fieldId];
        if (slot.counted === stamp) {
          postings!.set(shortId, postings!.get(shortId)! + 1);
          continue;
        }
        slot.counted = stamp;
        distinct++;
        if (!postings) {
          const data = (slot.data ??= this.tree.fetch(slot.term));
          postings = data.get(fieldId);
          if (!postings) data.set(fieldId, (postings = new Map()));
          slot.postings[fieldId] = postings;
        }
        postings.set(shortId, 1);
      }
      engine.addFieldLength(shortId, fieldId, engine._documentCount - 1, distinct);
      this.lengths[shortId * fieldCount + fieldId] = Math.min(distinct, 65535);
    }
  }

  /** Distinct terms per document and field, indexed `doc * fields + fieldId` (for QueryExecutor). */
  fieldLengths(): Uint16Array {
    return this.lengths.subarray(0, this.engine._documentCount * this.fieldCount);
  }
}
