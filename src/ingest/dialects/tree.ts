import { emptyRow, type PathElement, type RowElement } from "../files/xml-scan.ts";
import type { XmlNode, XmlValue } from "../files/xml.ts";
import { localName } from "../files/xml-scan.ts";

/** Scalar fields of the document header (lower-case tag → text). */
export type Context = Readonly<Record<string, string>>;

export interface Row {
  node: RowElement;
  /** Ancestors, root first. */
  path: readonly PathElement[];
}

/**
 * The element objects under a value: one element is an object, repeated ones an array;
 * empty elements (`<Item/>`, a string) carry no fields and are skipped.
 * @example elements({ ItemCode: "1" }) // [{ ItemCode: "1" }]
 */
export function elements(value: XmlValue | undefined): XmlNode[] {
  if (value === undefined || typeof value === "string") return [];
  if (!Array.isArray(value)) return [value];
  const out: XmlNode[] = [];
  for (const v of value) if (typeof v === "object" && !Array.isArray(v)) out.push(v);
  return out;
}

/**
 * First child element (any case, any prefix) named one of `names` (lower case).
 * @example child({ PROMOTIONITEMS: { Item: [] } }, ["promotionitems"]) // { Item: [] }
 */
export function child(node: XmlNode, names: readonly string[]): XmlValue | undefined {
  for (const tag in node) if (names.includes(localName(tag))) return node[tag];
  return undefined;
}

/**
 * Every outermost row element named in `rowNames` (lower case) below `root`, with its
 * ancestors (root first, the root named ""). Rows are not searched inside; embedded
 * `xs:schema` blocks are skipped. The in-memory counterpart of the streaming reader.
 *
 * @example collectRows(doc.root, new Set(["item"])).length // 2243
 */
export function collectRows(root: XmlNode, rowNames: ReadonlySet<string>): Row[] {
  const rows: Row[] = [];
  const walk = (node: XmlNode, path: PathElement[]) => {
    for (const tag in node) {
      const value = node[tag];
      if (typeof value === "string") continue;
      const name = localName(tag);
      if (name === "schema") continue;
      if (rowNames.has(name)) {
        for (const row of elements(value)) rows.push({ node: emptyRow(row), path });
      } else {
        for (const inner of elements(value)) walk(inner, [...path, { name: tag, node: inner }]);
      }
    }
  };
  walk(root, [{ name: "", node: root }]);
  return rows;
}

/**
 * The nearest scalar value on a row's ancestors for any of `tags` (lower case), e.g. the
 * `SubChainId` of the enclosing `SubChain`.
 * @example fromPath(row.path, ["subchainid"]) // "7"
 */
export function fromPath(path: readonly PathElement[], tags: readonly string[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const node = path[i]!.node;
    if (!node) continue;
    for (const tag in node) {
      const value = node[tag];
      if (typeof value === "string" && tags.includes(localName(tag))) return value;
    }
  }
  return undefined;
}

/**
 * Scalar fields of the document header: the root's and its containers' direct text children,
 * nearest the root first, without descending into `rowNames` rows.
 * @example headerOf(scanXml(text).root, PRICE_ROWS).storeid // "013"
 */
export function headerOf(root: XmlNode, rowNames: ReadonlySet<string>): Context {
  const header: Record<string, string> = {};
  const queue: XmlNode[] = [root];
  for (let depth = 0; depth < 4 && queue.length; depth++) {
    const level = queue.splice(0);
    for (const node of level) {
      for (const tag in node) {
        const value = node[tag];
        const name = localName(tag);
        if (typeof value === "string") {
          if (tag.charCodeAt(0) !== 64 && tag !== "#text" && !(name in header)) header[name] = value;
        } else if (!rowNames.has(name) && name !== "schema") {
          queue.push(...elements(value));
        }
      }
    }
  }
  return header;
}
