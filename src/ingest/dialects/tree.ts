import type { XmlNode, XmlValue } from "../files/xml.ts";
import { localName } from "./fields.ts";

/** Scalar fields of the enclosing elements (lower-case tag → text), nearest first. */
export type Context = Readonly<Record<string, string>>;

export interface Row {
  node: XmlNode;
  context: Context;
}

/**
 * The element objects under a value: one element is an object, repeated ones an array;
 * empty elements (`<Item/>`, a string) carry no fields and are skipped.
 */
export function elements(value: XmlValue | undefined): XmlNode[] {
  if (value === undefined || typeof value === "string") return [];
  if (!Array.isArray(value)) return [value];
  const out: XmlNode[] = [];
  for (const v of value) if (typeof v === "object" && !Array.isArray(v)) out.push(v);
  return out;
}

/** First child element (any case, any prefix) named one of `names` (lower case). */
export function child(node: XmlNode, names: readonly string[]): XmlValue | undefined {
  for (const tag in node) if (names.includes(localName(tag))) return node[tag];
  return undefined;
}

function withScalars(node: XmlNode, context: Context): Context {
  let local: Record<string, string> | null = null;
  for (const tag in node) {
    const v = node[tag];
    if (typeof v !== "string" || tag.charCodeAt(0) === 64 /* @ */ || tag === "#text") continue;
    const name = localName(tag);
    if (!local) local = { ...context };
    local[name] = v;
  }
  return local ?? context;
}

/**
 * Every row element named in `rowNames` (lower case) below `root`, with the scalar fields of
 * its ancestors as context (ChainId on the root, SubChainId on a SubChain, StoreId in an
 * Envelope…). Rows are not searched inside; embedded `xs:schema` blocks are skipped.
 *
 * @example collectRows(doc.root, new Set(["item"])).length // 2243
 */
export function collectRows(root: XmlNode, rowNames: ReadonlySet<string>): Row[] {
  const rows: Row[] = [];
  const walk = (node: XmlNode, inherited: Context) => {
    const context = withScalars(node, inherited);
    for (const tag in node) {
      const value = node[tag];
      if (typeof value === "string") continue;
      const name = localName(tag);
      if (name === "schema") continue;
      if (rowNames.has(name)) {
        for (const row of elements(value)) rows.push({ node: row, context });
      } else {
        for (const inner of elements(value)) walk(inner, context);
      }
    }
  };
  walk(root, {});
  return rows;
}

/**
 * Scalar fields of the document header: the root's and its containers' direct text children,
 * nearest the root first, without descending into `rowNames` rows.
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
