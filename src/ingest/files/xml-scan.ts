import type { XmlNode, XmlValue } from "./xml-value.ts";
import { detach } from "../load/detach.ts";

const GT = 62; // >
const SLASH = 47; // /
const QMARK = 63; // ?
const BANG = 33; // !
const EQ = 61; // =
const DQ = 34; // "
const SQ = 39; // '

const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Bytes `from`–`to` as a Latin-1 string (one char per byte): Buffer's `latin1Slice` (Node's
 * and Bun's, not in the type definitions), 3–4× cheaper in Bun 1.4 than `toString("latin1", …)`.
 * @example latin1(Buffer.from("<A>"), 1, 2) // "A"
 */
export function latin1(bytes: Buffer, from: number, to: number): string {
  return (bytes as Buffer & { latin1Slice(from: number, to: number): string }).latin1Slice(from, to);
}

/**
 * Bytes `from`–`to` of UTF-8 as a string: Latin-1 when ASCII (the same string, cheaper), else decoded.
 * @example textOfBytes(new TextEncoder().encode("<A>חלב</A>"), 3, 9) // "חלב"
 */
export function textOfBytes(bytes: Buffer, from: number, to: number): string {
  for (let i = from; i < to; i++) if (bytes[i]! > 127) return utf8.decode(bytes.subarray(from, to));
  return latin1(bytes, from, to);
}

/**
 * Text from `from` to `to` of a document: sliced from `xml`, or — when `xml` is the Latin-1
 * view of UTF-8 `bytes` (one char per byte) and the span holds a non-ASCII byte — decoded
 * from the bytes. Only the values kept are ever decoded.
 */
function span(xml: string, bytes: Uint8Array | null, from: number, to: number): string {
  if (bytes !== null) {
    for (let i = from; i < to; i++) if (xml.charCodeAt(i) > 127) return utf8.decode(bytes.subarray(from, to));
  }
  return xml.slice(from, to);
}

/** Thrown when a Latin-1 view holds a non-ASCII tag or attribute name: the caller reads the decoded text instead. */
export class NonAsciiName extends Error {}

function checkName(name: string, bytes: Uint8Array | null): string {
  if (bytes !== null) for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) > 127) throw new NonAsciiName(`non-ASCII name ${name}`);
  return name;
}

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
const REFERENCE = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z_][\w.-]*);/g;

/**
 * Expands the five predefined entities and character references; anything else that looks
 * like a reference (`&nbsp;`) or a bare `&` stays as written — nothing is ever expanded from
 * a DTD.
 *
 * @example decodeEntities("M&amp;M &#x5D0; & co") // "M&M א & co"
 */
export function decodeEntities(text: string): string {
  if (text.indexOf("&") < 0) return text;
  return text.replace(REFERENCE, (whole, ref: string) => {
    if (ref.charCodeAt(0) === 35 /* # */) {
      const code = ref.charCodeAt(1) === 120 /* x */ ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref] ?? whole;
  });
}

/** An element on the path from the root to a row (root first). */
export interface PathElement {
  readonly name: string;
  /** Its attributes and the children read so far (null: none yet). */
  readonly node: XmlNode | null;
}

/**
 * A streamed row: its text-only children as parallel tag/value lists (document order, repeats
 * kept) and everything else — attributes, nested elements — as a node. Keeping the leaves out
 * of an object is what makes flat price rows cheap; {@link rowNode} gives the plain node.
 * With `inPlace` scanning, a plain leaf's value is not sliced: `starts[i]` ≥ 0 and the leaf is
 * `text.slice(starts[i], ends[i])` before entity decoding — read it with {@link leafValue}
 * (which keeps it in `values[i]`); other leaves have `starts[i]` -1 and their value in `values[i]`.
 * Valid only during the `onRow` call (the lists are reused).
 */
export interface RowElement {
  node: XmlNode;
  tags: string[];
  values: (string | undefined)[];
  count: number;
  /** The document the spans point into. */
  text: string;
  /** The document's UTF-8 bytes when `text` is their Latin-1 view (see ScanOptions.bytes), else null. */
  bytes: Uint8Array | null;
  starts: number[];
  ends: number[];
  /**
   * The spans point into `bytes` (the whole document's UTF-8, scanned by scanBytes) and `text`
   * is not made yet: in-place readers read the bytes (char = byte, as in the Latin-1 view), and
   * {@link rowText} makes the row's own Latin-1 text when a value is asked for.
   */
  onBytes: boolean;
}

/** A new, empty row element. */
export function emptyRow(node: XmlNode = {}, text = "", bytes: Uint8Array | null = null): RowElement {
  return { node, tags: [], values: [], count: 0, text, bytes, starts: [], ends: [], onBytes: false };
}

/**
 * Gives a row scanned on bytes its text: the Latin-1 view of the bytes its in-place leaves
 * span (one small string per row, not per value or per document), spans moved onto it and
 * `bytes` narrowed to match — from then on the row reads as one scanned from a Latin-1 view.
 * Only rows whose values are read pay for it (a product the run's memo already knows is read
 * from the bytes). No-op for a row already on text.
 * @example rowText(row); row.text.slice(row.starts[0], row.ends[0]) // the first leaf's raw text
 */
export function rowText(row: RowElement): void {
  if (!row.onBytes) return;
  row.onBytes = false;
  const { starts, ends, count } = row;
  let from = -1;
  let to = -1;
  for (let i = 0; i < count; i++) {
    const s = starts[i]!;
    if (s < 0) continue;
    if (from < 0 || s < from) from = s;
    if (ends[i]! > to) to = ends[i]!;
  }
  if (from < 0) return;
  const bytes = row.bytes as Buffer;
  row.text = latin1(bytes, from, to);
  row.bytes = bytes.subarray(from, to);
  for (let i = 0; i < count; i++) {
    if (starts[i]! < 0) continue;
    starts[i] = starts[i]! - from;
    ends[i] = ends[i]! - from;
  }
}

/**
 * The value of leaf `i` of a row, entities decoded (read once from the text when left in place).
 * @example leafValue(row, 0) // "7290000066318"
 */
export function leafValue(row: RowElement, i: number): string {
  const value = row.values[i];
  if (value !== undefined) return value;
  rowText(row);
  const raw = span(row.text, row.bytes, row.starts[i]!, row.ends[i]!);
  const decoded = raw.indexOf("&") < 0 ? raw : decodeEntities(raw);
  row.values[i] = decoded;
  return decoded;
}

/**
 * The row as one node (the `Bun.XML.parse` shape), leaves included.
 * @example rowNode(row) // { ItemCode: "1", ItemPrice: "5.90" }
 */
export function rowNode(row: RowElement): XmlNode {
  const node: XmlNode = {};
  for (let i = 0; i < row.count; i++) put(node, row.tags[i]!, leafValue(row, i));
  for (const tag in row.node) {
    const value = row.node[tag]!;
    if (Array.isArray(value)) for (const v of value) put(node, tag, v);
    else put(node, tag, value);
  }
  return node;
}

export function put(node: XmlNode, name: string, value: XmlValue): void {
  const existing = node[name];
  if (existing === undefined) node[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else node[name] = [existing, value];
}

/**
 * Called for each complete row element (outermost element named in `rowNames`, below the
 * root), which is then not kept in the tree. `path` holds the row's ancestors, root first.
 */
export type RowHandler = (name: string, row: RowElement, path: readonly PathElement[]) => void;

export interface ScanOptions {
  /** Lower-case local names of row elements (`item`, `promotion`, …). */
  rowNames?: ReadonlySet<string>;
  /** Streams rows instead of keeping them in the tree (short-lived objects, far less GC work). */
  onRow?: RowHandler;
  /** Leaves plain text leaves of streamed rows in the text (see {@link RowElement}): no string per field unless asked. */
  inPlace?: boolean;
  /**
   * The document's UTF-8 bytes, when the text given is their Latin-1 view (one char per byte,
   * see src/ingest/files/decode.ts): the markup is ASCII, so it is scanned as is, and only the
   * values kept are decoded from the bytes. A non-ASCII tag or attribute name throws {@link NonAsciiName}.
   */
  bytes?: Uint8Array;
}

export interface Scanned {
  rootName: string;
  /** The document; rows handed to `onRow` are not in it. */
  root: XmlNode;
  /** Why the input ended before the document did (a cut file), else null. Open elements are closed; an unfinished row is dropped. */
  truncated: string | null;
}

/** An open element while scanning. */
export interface Open extends PathElement {
  name: string;
  node: XmlNode | null;
  text: string;
  /** Name of the last child opened (for the next-name prediction). */
  last: string;
  isRow: boolean;
  /** Has child elements (in `node` or, for a streamed row, in the leaf lists). */
  children: boolean;
}

export const EMPTY: XmlNode = Object.freeze({}) as XmlNode;

/** Thrown inside the scanner when the input ends inside an element or a tag. */
class EndOfInput extends Error {}

export function attach(parent: Open, name: string, value: XmlValue): void {
  parent.children = true;
  put((parent.node ??= {}), name, value);
}

const LOCAL_NAMES_KEPT = 4096;
const localNames = new Map<string, string>();
/**
 * Tag name without namespace prefix, lower case (cached: tag names repeat in every row; the cache
 * lives as long as the import's thread).
 * @example localName("asx:values") // "values"
 */
export function localName(tag: string): string {
  let name = localNames.get(tag);
  if (name === undefined) {
    name = tag.slice(tag.indexOf(":") + 1).toLowerCase();
    // Bounded: a file may invent any number of tag names.
    if (localNames.size >= LOCAL_NAMES_KEPT) localNames.clear();
    // A copy: a tag sliced from a file would pin that file's text in this module-level cache.
    localNames.set(detach(tag), detach(name));
  }
  return name;
}

export function isNameEnd(c: number): boolean {
  // whitespace, `/`, `>`, `=`
  return c === 32 || c === 10 || c === 13 || c === 9 || c === SLASH || c === GT || c === EQ;
}

/** Letters, `_`, `:` and anything non-ASCII may start a tag name. */
const isNameStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 58 || c > 127;

export const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * A small, fast XML reader for the price files, producing the shape of `Bun.XML.parse`
 * (`@attr`, `#text`, repeated children as arrays, leaves as strings) — about 2× faster here
 * and able to stream rows. Structure is enforced: a mismatched or stray closing tag throws
 * `SyntaxError`; input that ends inside the document returns `truncated` with the complete part.
 * Lenient where the files are sloppy: bare `&`, unknown entities (kept as written), unquoted
 * attribute values, a stray `<` in text. Comments and processing instructions are skipped,
 * CDATA is text, `<!DOCTYPE`/`<!ENTITY` throw — entity declarations are never read.
 *
 * @example scanXml("<Root><A>1</A><A>2</A></Root>") // { rootName: "Root", root: { A: ["1", "2"] }, truncated: null }
 */
export function scanXml(xml: string, options: ScanOptions = {}): Scanned {
  const rowNames = options.rowNames;
  const onRow = options.onRow;
  const top: Open = { name: "", node: null, text: "", last: "", isRow: false, children: false };
  const stack: Open[] = [top];
  let rowDepth = -1; // stack index of the row being read, -1 outside rows
  const bytes = options.bytes ?? null;
  const row = emptyRow({}, xml, bytes);
  const inPlace = options.inPlace === true;
  /** Adds a child to the open element at `depth`; text-only children of a streamed row go to its leaf lists. */
  const add = (depth: number, name: string, value: XmlValue) => {
    if (depth === rowDepth && typeof value === "string") {
      stack[depth]!.children = true;
      row.tags[row.count] = name;
      row.starts[row.count] = -1;
      row.values[row.count++] = value;
    } else {
      attach(stack[depth]!, name, value);
    }
  };
  let current = top;
  let pos = 0;
  const n = xml.length;
  let rootName: string | null = null;
  let rootValue: XmlValue | undefined;
  // Sibling order repeats row after row: predict the next tag name from the previous sibling's
  // and reuse that string (no slicing, no re-hashing) when the prediction holds.
  const nextName = new Map<string, string>();
  const path = (upTo: number): PathElement[] => stack.slice(1, upTo);

  try {
    while (pos < n) {
      const lt = xml.indexOf("<", pos);
      if (lt < 0) {
        if (stack.length > 1) throw new EndOfInput(`document ends inside <${current.name}>`);
        break;
      }
      if (lt > pos && stack.length > 1) addText(current, xml, bytes, pos, lt);
      if (lt + 1 >= n) throw new EndOfInput("document ends inside a tag");
      const c = xml.charCodeAt(lt + 1);
      if (c === SLASH) {
        // Closing tag: must match the open element.
        const name = current.name;
        let gt = lt + 2 + name.length;
        if (stack.length < 2 || !xml.startsWith(name, lt + 2) || xml.charCodeAt(gt) !== GT) {
          gt = xml.indexOf(">", lt + 2);
          if (gt < 0) throw new EndOfInput("document ends inside a closing tag");
          if (stack.length < 2 || !xml.startsWith(name, lt + 2) || xml.slice(lt + 2 + name.length, gt).trim() !== "") {
            throw new SyntaxError(`unexpected closing tag ${span(xml, bytes, lt, gt + 1)} at ${lt}${stack.length > 1 ? `, expected </${name}>` : ""}`);
          }
        }
        const depth = stack.length - 1;
        stack.pop();
        const parent = stack[stack.length - 1]!;
        if (depth === rowDepth) {
          rowDepth = -1;
          // Most rows have only leaves: no node object is made for them.
          row.node = current.node === null && !current.text.trim() ? EMPTY : (finish(current) as XmlNode);
          onRow!(name, row, path(depth));
          row.count = 0;
        } else {
          const value = finish(current);
          if (parent === top) {
            rootName = name;
            rootValue = value;
          } else {
            add(depth - 1, name, value);
          }
        }
        current = parent;
        pos = gt + 1;
        continue;
      }
      if (c === QMARK) {
        const end = xml.indexOf("?>", lt + 2);
        if (end < 0) throw new EndOfInput("document ends inside a processing instruction");
        pos = end + 2;
        continue;
      }
      if (c === BANG) {
        if (xml.startsWith("<!--", lt)) {
          const end = xml.indexOf("-->", lt + 4);
          if (end < 0) throw new EndOfInput("document ends inside a comment");
          pos = end + 3;
          continue;
        }
        if (xml.startsWith("<![CDATA[", lt)) {
          const end = xml.indexOf("]]>", lt + 9);
          if (end < 0) throw new EndOfInput("document ends inside CDATA");
          // Marked so that entity decoding leaves it alone.
          current.text += "\u0001" + span(xml, bytes, lt + 9, end) + "\u0002";
          pos = end + 3;
          continue;
        }
        throw new SyntaxError(`declarations (<!DOCTYPE>, <!ENTITY>) are not allowed (at ${lt})`);
      }
      if (!isNameStart(c)) {
        // A stray `<` in text (`a < b`): kept as text, as a lenient reader would.
        if (stack.length > 1) current.text += "<";
        pos = lt + 1;
        continue;
      }
      // Opening tag.
      let name = nextName.get(current.last);
      let i: number;
      if (name !== undefined && xml.startsWith(name, lt + 1) && isNameEnd(xml.charCodeAt(lt + 1 + name.length))) {
        i = lt + 1 + name.length;
      } else {
        i = lt + 1;
        while (i < n && !isNameEnd(xml.charCodeAt(i))) i++;
        if (i >= n) throw new EndOfInput("document ends inside a tag");
        name = checkName(xml.slice(lt + 1, i), bytes);
        nextName.set(current.last, name);
      }
      current.last = name;
      if (stack.length === 1 && rootName !== null) throw new SyntaxError(`second root element <${name}> at ${lt}`);
      if (xml.charCodeAt(i) === GT) {
        // Leaf fast path: `<Name>text</Name>`.
        const close = xml.indexOf("<", i + 1);
        if (close > 0 && xml.charCodeAt(close + 1) === SLASH && xml.startsWith(name, close + 2) && xml.charCodeAt(close + 2 + name.length) === GT && stack.length > 1) {
          if (inPlace && stack.length - 1 === rowDepth) {
            stack[rowDepth]!.children = true;
            const k = row.count++;
            row.tags[k] = name;
            row.values[k] = undefined;
            row.starts[k] = i + 1;
            row.ends[k] = close;
            pos = close + 3 + name.length;
            continue;
          }
          const raw = close === i + 1 ? "" : span(xml, bytes, i + 1, close);
          add(stack.length - 1, name, raw.indexOf("&") < 0 ? raw : decodeEntities(raw));
          pos = close + 3 + name.length;
          continue;
        }
        i++;
        push(name, null);
        pos = i;
        continue;
      }
      let node: XmlNode | null = null;
      let selfClosing = false;
      // Attributes until `>`; quoted values may hold `>`.
      for (;;) {
        while (isSpace(xml.charCodeAt(i))) i++;
        if (i >= n) throw new EndOfInput("document ends inside a tag");
        const ch = xml.charCodeAt(i);
        if (ch === GT) {
          i++;
          break;
        }
        if (ch === SLASH && xml.charCodeAt(i + 1) === GT) {
          selfClosing = true;
          i += 2;
          break;
        }
        const start = i;
        while (i < n && !isNameEnd(xml.charCodeAt(i))) i++;
        const attr = checkName(xml.slice(start, i), bytes);
        if (!attr) throw new SyntaxError(`bad attribute in <${name}> at ${i}`);
        while (isSpace(xml.charCodeAt(i))) i++;
        let value = "";
        if (xml.charCodeAt(i) === EQ) {
          i++;
          while (isSpace(xml.charCodeAt(i))) i++;
          const q = xml.charCodeAt(i);
          if (q === DQ || q === SQ) {
            const end = xml.indexOf(q === DQ ? '"' : "'", i + 1);
            if (end < 0) throw new EndOfInput("document ends inside an attribute value");
            value = span(xml, bytes, i + 1, end);
            i = end + 1;
          } else {
            // Unquoted (`Count=5`): up to whitespace or the tag end.
            const from = i;
            while (i < n) {
              const d = xml.charCodeAt(i);
              if (isSpace(d) || d === GT || (d === SLASH && xml.charCodeAt(i + 1) === GT)) break;
              i++;
            }
            value = span(xml, bytes, from, i);
          }
        }
        (node ??= {})[`@${attr}`] = decodeEntities(value);
      }
      if (selfClosing) {
        if (stack.length === 1) {
          rootName = name;
          rootValue = node ?? "";
        } else if (!(onRow && rowDepth < 0 && stack.length > 1 && rowNames?.has(localName(name)))) {
          // (an empty row element carries no fields and is dropped)
          add(stack.length - 1, name, node ?? "");
        }
        pos = i;
        continue;
      }
      push(name, node);
      pos = i;
    }
  } catch (error) {
    if (!(error instanceof EndOfInput)) throw error;
    return closeEarly(error.message);
  }
  if (stack.length > 1) return closeEarly(`document ends inside <${current.name}>`);
  if (rootName === null) throw new SyntaxError("document has no root element");
  return { rootName, root: asNode(rootValue), truncated: null };

  function push(name: string, node: XmlNode | null): void {
    const isRow = rowDepth < 0 && stack.length > 1 && rowNames !== undefined && rowNames.has(localName(name));
    const open: Open = { name, node, text: "", last: "", isRow, children: false };
    stack.push(open);
    if (isRow && onRow) rowDepth = stack.length - 1;
    current = open;
  }

  /** Closes what is open at a premature end; the unfinished row (if any) is dropped. */
  function closeEarly(reason: string): Scanned {
    if (stack.length < 2) {
      if (rootName === null) throw new SyntaxError(`document has no root element (${reason})`);
      return { rootName, root: asNode(rootValue), truncated: null };
    }
    const keep = rowDepth >= 0 ? rowDepth : (() => {
      // Without streaming, the innermost open row is the unfinished one.
      for (let d = 1; d < stack.length; d++) if (stack[d]!.isRow) return d;
      return stack.length;
    })();
    for (let d = stack.length - 1; d >= 2; d--) {
      if (d < keep) attach(stack[d - 1]!, stack[d]!.name, finish(stack[d]!));
    }
    return { rootName: stack[1]!.name, root: asNode(finish(stack[1]!)), truncated: reason };
  }
}

export function asNode(value: XmlValue | undefined): XmlNode {
  return typeof value === "object" && !Array.isArray(value) ? value : { "#text": (value as string) ?? "" };
}

/** Text between tags: leaves keep it as is; between child elements only non-blank text counts. */
function addText(open: Open, xml: string, bytes: Uint8Array | null, from: number, to: number): void {
  if (open.children) {
    let i = from;
    while (i < to && isSpace(xml.charCodeAt(i))) i++;
    if (i === to) return;
  }
  const chunk = span(xml, bytes, from, to);
  open.text = open.text ? open.text + chunk : chunk;
}

function text(raw: string): string {
  if (raw.indexOf("\u0001") < 0) return decodeEntities(raw);
  // CDATA sections are literal; text around them is decoded.
  let out = "";
  for (const part of raw.split("\u0002")) {
    const at = part.indexOf("\u0001");
    out += at < 0 ? decodeEntities(part) : decodeEntities(part.slice(0, at)) + part.slice(at + 1);
  }
  return out;
}

export function finish(open: Open): XmlValue {
  if (!open.children) {
    if (open.node === null) return open.text ? text(open.text) : "";
    if (open.text && open.text.trim()) open.node["#text"] = text(open.text).trim();
    return open.node;
  }
  // Text between child elements (indentation) is dropped; real mixed-in text is kept trimmed.
  const node = (open.node ??= {});
  if (open.text && open.text.trim()) node["#text"] = text(open.text).trim();
  return node;
}
