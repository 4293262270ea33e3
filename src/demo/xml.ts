/**
 * A small XML text builder that reproduces the chains' layouts: indentation (or one long
 * line), line endings, and how each one writes empty elements and quotes.
 */
export interface XmlStyle {
  /** Indentation unit, or null for everything on one line. */
  indent: string | null;
  eol: "\r\n" | "\n";
  /** How an element without text is written: `<A />` (.NET), `<A/>` or `<A></A>`. */
  empty: "space" | "tight" | "pair";
  /** Escape ' and " as &apos; &quot; (Super-Pharm does; most chains leave them). */
  escapeQuotes: boolean;
}

export type Value = string | number | null | undefined;

import { bomOf, encodeBody, type TextEncoding } from "./encoding.ts";
import { ByteSink } from "./byte-sink.ts";

export class XmlWriter {
  private readonly parts: (string | Uint8Array)[] = [];
  private depth = 0;
  private readonly indents: string[];
  /** Set by {@link encodedAs}: cached blocks are kept as bytes in this encoding. */
  private encoding: TextEncoding | null = null;
  /** Set by {@link encodedAs}: where the document (and each new cached block) is assembled. */
  private sink: ByteSink | null = null;

  constructor(private readonly style: XmlStyle) {
    this.indents = indentsFor(style.indent ?? "");
  }

  /** Raw text, e.g. an XML declaration. */
  raw(text: string): this {
    this.parts.push(text);
    return this;
  }

  open(tag: string, attrs?: Record<string, string | number>): this {
    this.line(`<${tag}${attributes(attrs)}>`);
    this.depth++;
    return this;
  }

  close(tag: string): this {
    this.depth--;
    this.line(`</${tag}>`);
    return this;
  }

  /** `<tag>value</tag>`; null/undefined/"" give an empty element in the writer's style. Numbers need no escaping. */
  leaf(tag: string, value: Value): this {
    const text = value == null ? "" : typeof value === "number" ? String(value) : this.escape(value);
    if (text === "") this.line(this.emptyTag(tag));
    else this.line(`<${tag}>${text}</${tag}>`);
    return this;
  }

  /** Like `leaf` for values known to hold no markup characters (codes, dates, prices). */
  safe(tag: string, value: string): this {
    if (value === "") this.line(this.emptyTag(tag));
    else this.line(`<${tag}>${value}</${tag}>`);
    return this;
  }

  /**
   * Writes a block through `build` once per `key` and reuses the text after that: a chain's
   * stores repeat the same item rows, so each row is built once per chain, not per store.
   */
  cached<K extends string | number>(cache: Map<K, string | Uint8Array> | undefined, key: K, build: (x: XmlWriter) => void): this {
    let block = cache?.get(key);
    if (block === undefined) {
      const sub = new XmlWriter(this.style);
      sub.depth = this.depth;
      build(sub);
      // Encoded once: the document is then assembled from bytes (see toBytes). With a sink, the
      // block is encoded into it and kept in the sink's store of blocks (no allocation per block).
      if (this.encoding === null || !cache) block = sub.toString();
      else if (this.sink) block = this.sink.keep(this.sink.reset().text(sub.toString(), this.encoding).view());
      else block = encodeBody(sub.toString(), this.encoding);
      cache?.set(key, block);
    }
    this.parts.push(block);
    return this;
  }

  /**
   * Makes this a writer of bytes in `encoding`: cached blocks are kept encoded, and
   * {@link toBytes} assembles the file from them without building one string of the whole
   * (joining and encoding a whole price file cost more than writing it).
   */
  encodedAs(encoding: TextEncoding, sink?: ByteSink): this {
    this.encoding = encoding;
    this.sink = sink ?? null;
    return this;
  }

  /**
   * The document as bytes in the encoding set by {@link encodedAs}, byte-order mark first,
   * without the whitespace it ends with (as `toString().trimEnd()`). Assembled in the sink given
   * to {@link encodedAs} (the view is valid until the sink is written again), or in a buffer of
   * its own.
   */
  toBytes(): Uint8Array<ArrayBuffer> {
    const sink = this.sink ?? new ByteSink(0);
    const encoding = this.encoding;
    if (encoding === null) throw new Error("toBytes needs encodedAs() first");
    sink.reset().bytes(bomOf(encoding));
    let pending: string[] = [];
    const flush = (trimEnd: boolean) => {
      let text = pending.join("");
      if (trimEnd) {
        text = text.trimEnd();
        if (!text) throw new Error("a document must end with text, not a cached block");
      }
      if (text) sink.text(text, encoding);
      pending = [];
    };
    for (const part of this.parts) {
      if (typeof part === "string") pending.push(part);
      else {
        flush(false);
        sink.bytes(part);
      }
    }
    flush(true);
    return sink.view();
  }

  /** An element with attributes and no content, e.g. `<Items Count="0"/>`. */
  emptyWith(tag: string, attrs: Record<string, string | number>, selfClose = "/>"): this {
    this.line(`<${tag}${attributes(attrs)}${selfClose}`);
    return this;
  }

  toString(): string {
    if (this.encoding !== null) throw new Error("an encoded writer is read with toBytes()");
    return this.parts.join("");
  }

  private emptyTag(tag: string): string {
    if (this.style.empty === "space") return `<${tag} />`;
    if (this.style.empty === "tight") return `<${tag}/>`;
    return `<${tag}></${tag}>`;
  }

  private line(text: string): void {
    if (this.style.indent === null) this.parts.push(text);
    else this.parts.push(this.indents[this.depth] + text + this.style.eol);
  }

  private escape(text: string): string {
    return escapeXml(text, this.style.escapeQuotes);
  }
}

const INDENTS = new Map<string, string[]>();

function indentsFor(unit: string): string[] {
  let list = INDENTS.get(unit);
  if (!list) INDENTS.set(unit, (list = Array.from({ length: 16 }, (_, i) => unit.repeat(i))));
  return list;
}

function attributes(attrs?: Record<string, string | number>): string {
  if (!attrs) return "";
  return Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v), true)}"`)
    .join("");
}

const NEEDS_ESCAPE = /[&<>\r'"]/;

/** Escapes markup characters; a carriage return inside text becomes `&#x0D;` as in Dor Alon's files. */
export function escapeXml(text: string, quotes: boolean): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  let out = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\r/g, "&#x0D;");
  if (quotes) out = out.replace(/'/g, "&apos;").replace(/"/g, "&quot;");
  return out;
}
