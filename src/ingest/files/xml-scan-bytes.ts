import { asNode, attach, decodeEntities, emptyRow, EMPTY, finish, isNameEnd, isSpace, latin1, localName, textOfBytes, type Open, type RowElement, type RowHandler, type Scanned } from "./xml-scan.ts";
import type { XmlNode, XmlValue } from "./xml-value.ts";
import { TagWords } from "./tag-words.ts";

const LT = 60; // <
const GT = 62; // >
const SLASH = 47; // /
const QMARK = 63; // ?
const BANG = 33; // !
const EQ = 61; // =
const DQ = 34; // "
const SQ = 39; // '

/**
 * Thrown by {@link scanBytes} for what it leaves to scanXml over the document's text: the
 * caller reads the whole file that way, which gives the same result or the same error.
 */
export class NotOnBytes extends Error {}

export interface ByteScanOptions {
  /** Lower-case local names of row elements (`item`, `promotion`, …). */
  rowNames: ReadonlySet<string>;
  /** Called for each complete row, its leaves left in place on the bytes (`onBytes`, see RowElement). */
  onRow: RowHandler;
}

/** `name` (ASCII) is written at `at`. */
function matches(bytes: Uint8Array, at: number, name: string): boolean {
  for (let k = 0; k < name.length; k++) if (bytes[at + k] !== name.charCodeAt(k)) return false;
  return true;
}

/** An ASCII tag or attribute name; anything else is the text scanner's (a non-ASCII name is read from the decoded text). */
function asciiName(bytes: Buffer, from: number, to: number): string {
  for (let i = from; i < to; i++) if (bytes[i]! > 127) throw new NotOnBytes("non-ASCII name");
  return latin1(bytes, from, to);
}

/**
 * scanXml for the common case, on the UTF-8 bytes of a document (no BOM, no declaration)
 * instead of a document-sized string: rows are streamed with their leaves in place on the bytes
 * (`onBytes`), so a row the caller reads from the bytes alone costs no string at all. What
 * the published price files never hold — `<!` anywhere (comments, CDATA, declarations), a
 * non-ASCII name, a stray `<`, a closing tag with spaces, malformed or truncated XML — throws
 * {@link NotOnBytes}, and the caller reads the file with scanXml: the two agree on every
 * document this one reads (test/ingest/files/scan-bytes.test.ts).
 *
 * @example scanBytes(Buffer.from("<Root><Item><A>1</A></Item></Root>"), { rowNames: new Set(["item"]), onRow }) // onRow("Item", row, [Root])
 */
export function scanBytes(bytes: Buffer, options: ByteScanOptions): Scanned {
  const { rowNames, onRow } = options;
  const n = bytes.length;
  // Indexed as a plain Uint8Array: a Buffer's own methods (indexOf) cost the JIT more to compile.
  const b = new Uint8Array(bytes.buffer, bytes.byteOffset, n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, n);
  for (let i = b.indexOf(BANG); i >= 0; i = b.indexOf(BANG, i + 1)) if (i > 0 && b[i - 1] === LT) throw new NotOnBytes("<! in the document");
  let pos = 0;
  while (pos < n && b[pos]! <= 32) pos++;
  if (b[pos] !== LT) throw new NotOnBytes("does not start with a tag");
  const top: Open = { name: "", node: null, text: "", last: "", isRow: false, children: false };
  const stack: Open[] = [top];
  let rowDepth = -1; // stack index of the row being read, -1 outside rows
  const row = emptyRow({}, "", bytes);
  let current = top;
  let rootName: string | null = null;
  let rootValue: XmlValue | undefined;
  // Sibling order repeats row after row: the next tag name is predicted from the previous sibling's.
  const nextName = new Map<string, string>();
  const blanks = new Map<number, string>();
  const tag: Tag = { node: null, selfClosing: false, end: 0 };

  while (pos < n) {
    const lt = b.indexOf(LT, pos);
    if (lt < 0) {
      if (stack.length > 1) throw new NotOnBytes("truncated");
      break;
    }
    if (lt > pos && stack.length > 1) addText(current, bytes, pos, lt, blanks);
    if (stack.length - 1 === rowDepth) {
      // Most of a document: a row's plain leaves, read by the small loop below.
      const next = rowLeaves(b, bytes, view, lt, row, current);
      if (next !== lt) {
        pos = next;
        continue;
      }
    }
    const c = b[lt + 1];
    if (c === SLASH) {
      // Closing tag: `</Name>` of the open element; anything else is the text scanner's to judge.
      const name = current.name;
      const gt = lt + 2 + name.length;
      if (stack.length < 2 || !matches(b, lt + 2, name) || b[gt] !== GT) throw new NotOnBytes("closing tag");
      const depth = stack.length - 1;
      stack.pop();
      const parent = stack[stack.length - 1]!;
      if (depth === rowDepth) {
        rowDepth = -1;
        row.node = current.node === null && !current.text.trim() ? EMPTY : (finish(current) as XmlNode);
        row.text = "";
        row.bytes = bytes;
        row.onBytes = true;
        onRow(name, row, stack.slice(1, depth));
        row.count = 0;
        current = parent;
        // The rows that follow are mostly plain: read apart, by a loop of their own.
        pos = plainRows(b, bytes, view, gt + 1, name, row, stack, onRow, blanks);
        continue;
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
      const end = bytes.indexOf("?>", lt + 2, "latin1");
      if (end < 0) throw new NotOnBytes("truncated");
      pos = end + 2;
      continue;
    }
    if (c === undefined || !((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 58)) throw new NotOnBytes("not a tag name");
    // Opening tag.
    let name = nextName.get(current.last);
    let i: number;
    if (name !== undefined && matches(b, lt + 1, name) && isNameEnd(b[lt + 1 + name.length]!)) {
      i = lt + 1 + name.length;
    } else {
      i = lt + 1;
      while (i < n && !isNameEnd(b[i]!)) i++;
      if (i >= n) throw new NotOnBytes("truncated");
      name = asciiName(bytes, lt + 1, i);
      nextName.set(current.last, name);
    }
    current.last = name;
    if (stack.length === 1 && rootName !== null) throw new NotOnBytes("second root");
    if (b[i] === GT) {
      // Leaf fast path: `<Name>text</Name>`.
      const close = b.indexOf(LT, i + 1);
      if (close > 0 && b[close + 1] === SLASH && matches(b, close + 2, name) && b[close + 2 + name.length] === GT && stack.length > 1) {
        if (stack.length - 1 === rowDepth) {
          stack[rowDepth]!.children = true;
          const k = row.count++;
          row.tags[k] = name;
          row.values[k] = undefined;
          row.starts[k] = i + 1;
          row.ends[k] = close;
        } else {
          const raw = close === i + 1 ? "" : textOfBytes(bytes, i + 1, close);
          add(stack.length - 1, name, raw.indexOf("&") < 0 ? raw : decodeEntities(raw));
        }
        pos = close + 3 + name.length;
        continue;
      }
      push(name, null);
      pos = i + 1;
      continue;
    }
    readAttributes(b, bytes, i, tag);
    const { node, selfClosing } = tag;
    i = tag.end;
    if (selfClosing) {
      if (stack.length === 1) {
        rootName = name;
        rootValue = node ?? "";
      } else if (!(rowDepth < 0 && stack.length > 1 && rowNames.has(localName(name)))) {
        // (an empty row element carries no fields and is dropped)
        add(stack.length - 1, name, node ?? "");
      }
      pos = i;
      continue;
    }
    push(name, node);
    pos = i;
  }
  if (stack.length > 1) throw new NotOnBytes("truncated");
  if (rootName === null) throw new NotOnBytes("no root element");
  return { rootName, root: asNode(rootValue), truncated: null };

  /** Adds a child to the open element at `depth`; text-only children of a streamed row go to its leaf lists. */
  function add(depth: number, name: string, value: XmlValue): void {
    if (depth === rowDepth && typeof value === "string") {
      stack[depth]!.children = true;
      row.tags[row.count] = name;
      row.starts[row.count] = -1;
      row.values[row.count++] = value;
    } else {
      attach(stack[depth]!, name, value);
    }
  }

  function push(name: string, node: XmlNode | null): void {
    const isRow = rowDepth < 0 && stack.length > 1 && rowNames.has(localName(name));
    const open: Open = { name, node, text: "", last: "", isRow, children: false };
    stack.push(open);
    if (isRow) rowDepth = stack.length - 1;
    current = open;
  }
}

/**
 * Reads the rows that follow a streamed row `name` for as long as they are plain — `<name>`, plain
 * leaves (see {@link rowLeaves}) with whitespace around them, `</name>` — handing each to `onRow`
 * as the scanner's loop would (no node: EMPTY; its ancestors from `stack`, whose top is the rows'
 * parent), and returns where it stopped: at the `<` of anything else (another element, a row with
 * attributes, nesting, text or no leaf — `<name></name>` is a leaf of the parent —, the parent's
 * closing tag), the text before it added to the parent.
 * The scanner's loop reads on from there, so a row not read here is read there. Apart from it, the
 * loop that reads nearly all of a document is small, which the JIT compiles early and cheaply — and
 * the same for every dialect, so it is not compiled again when the next file's dialect differs.
 */
function plainRows(b: Uint8Array, bytes: Buffer, view: DataView, from: number, name: string, row: RowElement, stack: Open[], onRow: RowHandler, blanks: Map<number, string>): number {
  const n = b.length;
  const parent = stack[stack.length - 1]!;
  const close = name.length + 3; // `</name>`
  // Stands for the row being read: whitespace between its leaves is dropped (it has children).
  const open: Open = { name, node: null, text: "", last: "", isRow: true, children: true };
  // The rows' ancestors, the same for every row read here: one array, not one per row.
  const path = stack.slice(1);
  let pos = from;
  for (;;) {
    const lt = b.indexOf(LT, pos);
    if (lt < 0) return pos;
    if (lt > pos) addText(parent, bytes, pos, lt, blanks);
    if (!matches(b, lt + 1, name) || b[lt + 1 + name.length] !== GT) return lt;
    let end = rowLeaves(b, bytes, view, lt + 2 + name.length, row, open);
    while (end < n && isSpace(b[end]!)) end++;
    if (row.count === 0 || b[end] !== LT || b[end + 1] !== SLASH || !matches(b, end + 2, name) || b[end + 2 + name.length] !== GT) {
      row.count = 0;
      return lt;
    }
    row.node = EMPTY;
    row.text = "";
    row.bytes = bytes;
    row.onBytes = true;
    onRow(name, row, path);
    row.count = 0;
    pos = end + close;
  }
}

/**
 * Reads a row's plain leaves (`<Name>text</Name>`, whitespace between them) from `lt`, leaving
 * them in place, and returns where it stopped: at anything else (a closing tag, attributes,
 * nesting, text), which the scanner's loop reads. A leaf's name is predicted from the previous
 * row's leaf at the same position (rows repeat their fields in order), so it is neither sliced
 * nor looked up. Apart from the scanner's loop: the smaller hot loop costs the JIT less to compile.
 */
function rowLeaves(b: Uint8Array, bytes: Buffer, view: DataView, lt: number, row: RowElement, open: Open): number {
  const n = b.length;
  let at = lt;
  for (;;) {
    let p = at;
    // Whitespace between fields is dropped once the row has a field (as addText does).
    if (open.children) while (p < n && isSpace(b[p]!)) p++;
    if (b[p] !== LT) return at;
    const c = b[p + 1]!;
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 58)) return at;
    let name = row.tags[row.count];
    let words = name === undefined ? undefined : slotWords[row.count];
    let i: number;
    if (words !== undefined && words.name === name && words.at(view, p + 1, n)) {
      i = p + 1 + name!.length;
    } else {
      i = p + 1;
      while (i < n && !isNameEnd(b[i]!)) i++;
      if (b[i] !== GT) return at;
      name = asciiName(bytes, p + 1, i);
      words = tagWords(name);
      slotWords[row.count] = words;
    }
    const close = b.indexOf(LT, i + 1);
    if (close < 0 || b[close + 1] !== SLASH || !words.at(view, close + 2, n)) return at;
    open.children = true;
    open.last = name;
    const k = row.count++;
    row.tags[k] = name;
    row.values[k] = undefined;
    row.starts[k] = i + 1;
    row.ends[k] = close;
    at = close + 3 + name.length;
  }
}

/** The TagWords of the leaf name last read at each position of a row (rowLeaves' prediction). */
const slotWords: TagWords[] = [];
/** TagWords by name, made once per name for the thread's life (leaf names are a dialect's few dozen). */
const wordsByName = new Map<string, TagWords>();

function tagWords(name: string): TagWords {
  let words = wordsByName.get(name);
  if (words === undefined) {
    if (wordsByName.size >= 4096) wordsByName.clear();
    wordsByName.set(name, (words = new TagWords(name)));
  }
  return words;
}

/** An opening tag's attributes, read by {@link readAttributes}. */
interface Tag {
  node: XmlNode | null;
  selfClosing: boolean;
  /** Just past the tag's `>`. */
  end: number;
}

/**
 * Reads the attributes of an opening tag from `i` (just past its name) to its `>` or `/>`.
 * Apart from the scanner's loop: tags with attributes are few, and a smaller loop costs the JIT less to compile.
 */
function readAttributes(b: Uint8Array, bytes: Buffer, i: number, tag: Tag): void {
  const n = b.length;
  let node: XmlNode | null = null;
  let selfClosing = false;
  // Attributes until `>`; quoted values may hold `>`.
  for (;;) {
    while (isSpace(b[i]!)) i++;
    if (i >= n) throw new NotOnBytes("truncated");
    const ch = b[i];
    if (ch === GT) {
      i++;
      break;
    }
    if (ch === SLASH && b[i + 1] === GT) {
      selfClosing = true;
      i += 2;
      break;
    }
    const start = i;
    while (i < n && !isNameEnd(b[i]!)) i++;
    if (i === start) throw new NotOnBytes("bad attribute");
    const attr = asciiName(bytes, start, i);
    while (isSpace(b[i]!)) i++;
    let value = "";
    if (b[i] === EQ) {
      i++;
      while (isSpace(b[i]!)) i++;
      const q = b[i];
      if (q === DQ || q === SQ) {
        const end = b.indexOf(q, i + 1);
        if (end < 0) throw new NotOnBytes("truncated");
        value = textOfBytes(bytes, i + 1, end);
        i = end + 1;
      } else {
        // Unquoted (`Count=5`): up to whitespace or the tag end.
        const from = i;
        while (i < n) {
          const d = b[i]!;
          if (isSpace(d) || d === GT || (d === SLASH && b[i + 1] === GT)) break;
          i++;
        }
        value = textOfBytes(bytes, from, i);
      }
    }
    (node ??= {})[`@${attr}`] = decodeEntities(value);
  }
  tag.node = node;
  tag.selfClosing = selfClosing;
  tag.end = i;
}

/** Text between tags, as scanXml keeps it: between child elements only non-blank text counts. */
function addText(open: Open, bytes: Buffer, from: number, to: number, blanks: Map<number, string>): void {
  let i = from;
  while (i < to && isSpace(bytes[i]!)) i++;
  if (i === to && open.children) return;
  const chunk = i === to ? blank(bytes, from, to, blanks) : textOfBytes(bytes, from, to);
  open.text = open.text ? open.text + chunk : chunk;
}

/** Whitespace between tags (the indentation before a row's first field, once per row): short runs repeat, so they are made once per document. */
function blank(bytes: Buffer, from: number, to: number, blanks: Map<number, string>): string {
  if (to - from > 24) return latin1(bytes, from, to);
  // Two bits per char (space, \n, \r, \t) and the length: one number per distinct run.
  let key = to - from;
  for (let i = from; i < to; i++) {
    const c = bytes[i]!;
    key = key * 4 + (c === 32 ? 0 : c === 10 ? 1 : c === 13 ? 2 : 3);
  }
  let text = blanks.get(key);
  if (text === undefined) blanks.set(key, (text = latin1(bytes, from, to)));
  return text;
}
