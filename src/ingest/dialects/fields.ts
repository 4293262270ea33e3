import { EMPTY, leafValue, localName, type RowElement } from "../files/xml-scan.ts";
import type { XmlNode, XmlValue } from "../files/xml.ts";
import { detach } from "../load/detach.ts";

/** Canonical field → the tag spellings seen in the wild (matched case-insensitively). */
export type AliasTable<K extends string> = Record<K, readonly string[]>;

export type Fields<K extends string> = Partial<Record<K, XmlValue>>;

/**
 * Reads rows through an alias table: every tag spelling (any case, any namespace prefix)
 * lands on its canonical field; the first occurrence wins. Unknown tags are ignored.
 *
 * @example new FieldMap({ name: ["ItemName", "ItemNm"] }).read({ ITEMNM: "חלב" }) // { name: "חלב" }
 */
export class FieldMap<K extends string> {
  private readonly byLower = new Map<string, K>();
  private readonly byTag = new Map<string, K | null>();
  private readonly slotByTag = new Map<string, number>();
  /** Canonical fields in slot order (see {@link readSlots}). */
  readonly fields: readonly K[];

  constructor(table: AliasTable<K>) {
    this.fields = Object.keys(table) as K[];
    for (const canonical of this.fields) {
      for (const alias of table[canonical]) this.byLower.set(alias.toLowerCase(), canonical);
    }
  }

  /** Slot number of a field, for {@link readSlots}. */
  slot(field: K): number {
    return this.fields.indexOf(field);
  }

  /**
   * The hot-path form of {@link read} for streamed rows: fills `slots[slot(field)]` (cleared
   * first) from the row's leaf lists, then from its node, without building an object per row.
   */
  /** The slot of the row's `i`-th tag. Rows repeat their tags in the same order (the same string objects): remembered by position. */
  private slotAt(i: number, tag: string): number {
    if (this.lastTags[i] === tag) return this.lastSlots[i]!;
    const slot = this.slotOfTag(tag);
    this.lastTags[i] = tag;
    this.lastSlots[i] = slot;
    return slot;
  }

  readSlots(row: RowElement, slots: (XmlValue | undefined)[]): void {
    slots.fill(undefined);
    const { tags, values, count } = row;
    for (let i = 0; i < count; i++) {
      const slot = this.slotAt(i, tags[i]!);
      if (slot >= 0 && slots[slot] === undefined) slots[slot] = values[i] ?? leafValue(row, i);
    }
    for (const tag in row.node) {
      const slot = this.slotOfTag(tag);
      if (slot >= 0 && slots[slot] === undefined) slots[slot] = row.node[tag];
    }
  }

  /**
   * {@link readSlots} without reading any value: `leaves[slot]` = the index of the field's leaf
   * (-1: none), else `nodes[slot]` = its value from the row's node (attributes, nesting).
   */
  readLeafSlots(row: RowElement, leaves: Int32Array, nodes: (XmlValue | undefined)[]): void {
    // Once per row of a file: a loop over a few dozen slots costs less than two native fills.
    for (let k = 0; k < leaves.length; k++) leaves[k] = -1;
    for (let k = 0; k < nodes.length; k++) nodes[k] = undefined;
    const { tags, count } = row;
    for (let i = 0; i < count; i++) {
      const slot = this.slotAt(i, tags[i]!);
      if (slot >= 0 && leaves[slot]! < 0) leaves[slot] = i;
    }
    // A plain row (leaves only) has the shared empty node: no enumeration to set up.
    if (row.node === EMPTY) return;
    for (const tag in row.node) {
      const slot = this.slotOfTag(tag);
      if (slot >= 0 && leaves[slot]! < 0 && nodes[slot] === undefined) nodes[slot] = row.node[tag];
    }
  }

  private readonly lastTags: string[] = [];
  private readonly lastSlots: number[] = [];

  private slotOfTag(tag: string): number {
    let slot = this.slotByTag.get(tag);
    if (slot === undefined) {
      const field = this.resolve(tag);
      slot = field === null ? -1 : this.fields.indexOf(field);
      this.slotByTag.set(detach(tag), slot);
    }
    return slot;
  }

  /** The canonical field of a tag as written, or null. */
  resolve(tag: string): K | null {
    let field = this.byTag.get(tag);
    if (field === undefined) {
      field = tag.charCodeAt(0) === 64 /* @ */ ? null : (this.byLower.get(localName(tag)) ?? null);
      this.byTag.set(detach(tag), field);
    }
    return field;
  }

  /** The row's known fields, keyed canonically. */
  read(row: XmlNode, into: Fields<K> = {}): Fields<K> {
    for (const tag in row) {
      const field = this.resolve(tag);
      if (field !== null && into[field] === undefined) into[field] = row[tag];
    }
    return into;
  }
}
