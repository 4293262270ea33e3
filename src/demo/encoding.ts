/** Text → bytes in the encodings the chains publish: UTF-8 (± BOM), UTF-16LE with BOM, windows-1255. */

import { windows1255Into } from "./byte-sink.ts";

import type { TextEncoding } from "./text-encoding.ts";

export type { TextEncoding };

const utf8 = new TextEncoder();

export function encodeText(text: string, encoding: TextEncoding): Uint8Array<ArrayBuffer> {
  const bom = bomOf(encoding);
  return bom.length ? concat(bom, encodeBody(text, encoding)) : encodeBody(text, encoding);
}

/** The byte-order mark a file in `encoding` starts with (none for UTF-8 and windows-1255). */
export function bomOf(encoding: TextEncoding): Uint8Array<ArrayBuffer> {
  if (encoding === "utf8-bom") return new Uint8Array([0xef, 0xbb, 0xbf]);
  if (encoding === "utf16le") return new Uint8Array([0xff, 0xfe]);
  return new Uint8Array(0);
}

/** Text → bytes without a byte-order mark: a part of a document (pieces encode as the whole, cut between characters). */
export function encodeBody(text: string, encoding: TextEncoding): Uint8Array<ArrayBuffer> {
  switch (encoding) {
    case "utf8":
    case "utf8-bom":
      return utf8.encode(text);
    case "utf16le":
      return utf16le(text);
    case "windows-1255":
      return windows1255(text);
  }
}

function utf16le(text: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    out[i * 2] = unit & 0xff;
    out[1 + i * 2] = unit >>> 8;
  }
  return out;
}

function windows1255(text: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(text.length);
  windows1255Into(text, out, 0);
  return out;
}

export function concat(...chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
