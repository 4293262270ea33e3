import { Elysia } from "elysia";
import type * as z from "zod";
import { constants, inflateRawSync } from "node:zlib";
import { acceptsGzip, compressHead, gzipWithTail, HeadJoiner, joinHeads, unfilledBytes, type CompressedHead } from "./gzip-answer.ts";
import { AnswerBuffer } from "./answer-buffer.ts";

/**
 * The `data` of an answer serialized once and reused across requests (hot read paths whose
 * answers are cached): the handler returns `{ data: PrebuiltJson, meta }`, the app's hooks fill
 * `meta` as usual, and the module's `prebuiltJson()` hook writes the envelope around the bytes
 * instead of serializing the data again.
 */
export class PrebuiltJson {
  /** `{"data":<bytes>` deflated, made when a client first accepts gzip (see gzip-answer.ts). */
  private head: CompressedHead | undefined;
  /** The bytes alone deflated, for answers that embed this one (see list). */
  private body: CompressedHead | undefined;
  /** The JSON text as UTF-8, when made (a list is copied into one buffer only if asked). */
  private flat: Uint8Array | undefined;
  /**
   * This answer as a list's member after the first (see list): `,` and its text deflated, in one
   * buffer, with the CRC-32 of that text and its crc32Shift — made once, kept as plain fields so a
   * list of 100 cached answers reads each one's compressed bytes through no other object.
   */
  private listed: Uint8Array | undefined;
  private listedCrc = 0;
  private listedShift = 0;

  private constructor(
    flat: Uint8Array | undefined,
    /** For a list: its members, written straight into the sent bytes and reused for gzip. */
    private readonly members: readonly (Uint8Array | PrebuiltJson)[] | undefined,
    /** Length of the UTF-8 text. */
    readonly size: number,
  ) {
    this.flat = flat;
  }

  /**
   * A JSON array of cached answers and plain UTF-8 JSON values (trusted to be valid JSON). Nothing
   * is copied here: the envelope is written from the members (one copy, into the buffer sent), and
   * sent gzipped, the cached answers' compressed bytes are reused (each deflated once, when first
   * listed) with only the plain pieces added as stored blocks. A batch of 100 cached answers
   * (~0.5 MB) costs one copy per request, not a compression of the whole — nor two more
   * zero-filled half-megabyte buffers, which is what a batch's time went on (bench/batch.ts).
   *
   * @example PrebuiltJson.list([a, utf8('{"error":1}'), b]) // [a,{"error":1},b]
   */
  static list(members: readonly (Uint8Array | PrebuiltJson)[]): PrebuiltJson {
    let size = OPEN.length + CLOSE.length + Math.max(0, members.length - 1);
    for (const m of members) size += m instanceof PrebuiltJson ? m.size : m.length;
    return new PrebuiltJson(undefined, members, size);
  }

  /**
   * An answer held deflated only (see gzip-answer.ts): compressed once, now, and its text dropped —
   * a store answer of 2,000 entries is ≈1 MB of JSON but ≈70 KB deflated, so a bounded cache holds
   * 14× as many. Sent gzipped (most clients) its bytes are copied as they are; a client that does
   * not accept gzip costs an inflate (≈1 ms per MB), the last one kept (see inflated).
   */
  static compact(json: Uint8Array): PrebuiltJson {
    const answer = new PrebuiltJson(undefined, undefined, json.length);
    answer.body = compressHead(json);
    return answer;
  }

  /** Bytes held while this answer is in memory: its text, or for a compact answer its deflated bytes. */
  get heldBytes(): number {
    if (this.flat) return this.flat.length;
    let held = 0;
    for (const chunk of this.body?.deflated ?? []) held += chunk.length;
    return held;
  }

  /** The JSON text as UTF-8 (a list's members copied into one buffer on first use; a compact answer's inflated, not kept). */
  get bytes(): Uint8Array {
    if (!this.flat && !this.members && this.body) return inflated(this, this.body);
    if (!this.flat) {
      const out = new Uint8Array(this.size);
      this.writeTo(out, 0);
      this.flat = out;
    }
    return this.flat;
  }

  /** Copies the UTF-8 text into `out` at `at`; returns the offset after it. */
  writeTo(out: Uint8Array, at: number): number {
    const { members } = this;
    if (this.flat || !members) {
      out.set(this.bytes, at);
      return at + this.size;
    }
    out[at++] = OPEN[0]!;
    for (let i = 0; i < members.length; i++) {
      if (i) out[at++] = COMMA[0]!;
      const m = members[i]!;
      if (m instanceof PrebuiltJson) at = m.writeTo(out, at);
      else {
        out.set(m, at);
        at += m.length;
      }
    }
    out[at++] = CLOSE[0]!;
    return at;
  }

  /**
   * The bytes alone deflated once (sync-flushed raw deflate, see compressHead); a list's from its
   * members' own (joinList), as its compressedHead is.
   */
  private deflatedBody(): CompressedHead {
    this.body ??= this.members ? this.joinList(new HeadJoiner(), this.members) : compressHead(this.bytes);
    return this.body;
  }

  /**
   * A list's text deflated from its members' compressed bytes: `[` and `]` as stored blocks, the
   * first member's own deflated bytes, each later one's with its comma (listed), plain members as
   * stored blocks after the comma's deflated bytes.
   */
  private joinList(joiner: HeadJoiner, members: readonly (Uint8Array | PrebuiltJson)[]): CompressedHead {
    joiner.head(STORED_OPEN);
    for (let i = 0; i < members.length; i++) {
      const m = members[i]!;
      if (m instanceof PrebuiltJson) {
        if (i === 0) joiner.head(m.deflatedBody());
        else m.addListed(joiner);
      } else {
        if (i) joiner.head(DEFLATED_COMMA);
        joiner.plain(m);
      }
    }
    joiner.head(STORED_CLOSE);
    return joiner.joined();
  }

  /** Adds this answer after a comma (making its listed form on first use). */
  private addListed(joiner: HeadJoiner): void {
    if (!this.listed) {
      const withComma = joinHeads([DEFLATED_COMMA, this.deflatedBody()]);
      const bytes = new Uint8Array(withComma.deflated.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const chunk of withComma.deflated) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      this.listed = bytes;
      this.listedCrc = withComma.crc;
      this.listedShift = withComma.shift;
    }
    joiner.chunk(this.listed, this.listedCrc, this.size + 1, this.listedShift);
  }

  /** Serializes a JSON value once (to UTF-8: Hebrew text would otherwise be re-encoded on every send). */
  static of(value: unknown): PrebuiltJson {
    return PrebuiltJson.fromBytes(encoder.encode(JSON.stringify(value)));
  }

  /** JSON built by hand as UTF-8 bytes (trusted to be valid JSON). */
  static fromBytes(json: Uint8Array): PrebuiltJson {
    return new PrebuiltJson(json, undefined, json.length);
  }

  /** The envelope's constant head, deflated once. */
  compressedHead(): CompressedHead {
    if (!this.head && this.members) {
      const joiner = new HeadJoiner();
      joiner.head(STORED_HEAD);
      this.head = this.joinList(joiner, this.members);
    }
    if (!this.head && this.body && !this.flat) this.head = joinHeads([STORED_HEAD, this.body]);
    if (!this.head) {
      const head = new Uint8Array(HEAD.length + this.size);
      head.set(HEAD, 0);
      this.writeTo(head, HEAD.length);
      this.head = compressHead(head);
    }
    return this.head;
  }
}

/**
 * The text of the compact answer inflated last: a client paging through one answer, or several
 * clients without gzip asking the same one, inflate it once. Holds one answer's text at most.
 */
let lastInflated: { of: PrebuiltJson; bytes: Uint8Array } | undefined;

function inflated(of: PrebuiltJson, body: CompressedHead): Uint8Array {
  if (lastInflated?.of === of) return lastInflated.bytes;
  const deflated = body.deflated.length === 1 ? body.deflated[0]! : Buffer.concat(body.deflated as Uint8Array[]);
  const text = inflateRawSync(deflated, { finishFlush: constants.Z_SYNC_FLUSH });
  const bytes = new Uint8Array(text.buffer, text.byteOffset, text.length);
  lastInflated = { of, bytes };
  return bytes;
}

/** Answers smaller than this are sent as they are: gzip would save too little to be worth it. */
export const GZIP_FROM_BYTES = 1024;

/** The Content-Type of these answers. */
export const JSON_CONTENT_TYPE = "application/json;charset=utf-8";

const encoder = new TextEncoder();
const HEAD = encoder.encode('{"data":');
const OPEN = encoder.encode("[");
const COMMA = encoder.encode(",");
const CLOSE = encoder.encode("]");

/** `{"data":`, `[` and `]` as stored blocks with their CRCs, made once (each list joined is framed by them). */
const STORED_HEAD = joinHeads([HEAD]);
const STORED_OPEN = joinHeads([OPEN]);
const STORED_CLOSE = joinHeads([CLOSE]);

/** `,` deflated (as a cached answer is: compressHead), between a list's members. */
const DEFLATED_COMMA = compressHead(COMMA);
const META = encoder.encode(',"meta":');
const TAIL = encoder.encode("}");

/**
 * `{"data":<bytes>,"meta":<meta>}` as one UTF-8 buffer, from `allocate(size)` (default: a buffer
 * of its own; see AnswerBuffer). Not zero-filled first (every byte is written): zero-filling a
 * fresh half-megabyte buffer cost more than the copy into it.
 */
export function envelopeBytes(data: PrebuiltJson, meta: unknown, allocate: (size: number) => Uint8Array = unfilledBytes): Uint8Array {
  const metaBytes = encoder.encode(JSON.stringify(meta ?? {}));
  const out = allocate(HEAD.length + data.size + META.length + metaBytes.length + TAIL.length);
  out.set(HEAD, 0);
  let at = data.writeTo(out, HEAD.length);
  out.set(META, at);
  at += META.length;
  out.set(metaBytes, at);
  out.set(TAIL, at + metaBytes.length);
  return out;
}

/** The same envelope gzipped: the data part deflated once per answer, `meta` appended as is. */
export function gzippedEnvelopeBytes(data: PrebuiltJson, meta: unknown, allocate: (size: number) => Uint8Array = unfilledBytes): Uint8Array {
  return gzipWithTail(data.compressedHead(), encoder.encode(`,"meta":${JSON.stringify(meta ?? {})}}`), allocate);
}

/**
 * The bytes of an answer whose `data` is a PrebuiltJson, gzipped when the client accepts it and it
 * is worth it, written into `allocate(size)` (default: a buffer of its own; see AnswerBuffer); sets
 * the answer's Vary, Content-Type and Content-Encoding on `headers`. Undefined for any other value.
 */
export function prebuiltAnswerBytes(request: Request, value: unknown, headers: Record<string, string>, allocate: (size: number) => Uint8Array = unfilledBytes): Uint8Array | undefined {
  const answer = value as { data?: unknown; meta?: unknown } | null;
  if (!answer || typeof answer !== "object" || !(answer.data instanceof PrebuiltJson)) return undefined;
  // Caches must key on the client's Accept-Encoding (the widget's answers also vary by Origin).
  const vary = headers.vary;
  headers.vary = vary ? `${vary}, Accept-Encoding` : "Accept-Encoding";
  headers["content-type"] = JSON_CONTENT_TYPE;
  if (answer.data.size >= GZIP_FROM_BYTES && acceptsGzip(request.headers.get("accept-encoding"))) {
    headers["content-encoding"] = "gzip";
    return gzippedEnvelopeBytes(answer.data, answer.meta, allocate);
  }
  return envelopeBytes(answer.data, answer.meta, allocate);
}

/**
 * A module-local plugin: answers whose `data` is a PrebuiltJson are written as JSON bytes with
 * the status and headers the hooks set. Register it in the module before its routes.
 */
export function prebuiltJson() {
  // Large answers are written into one buffer, reused (see AnswerBuffer).
  const buffer = new AnswerBuffer();
  const allocate = (size: number) => buffer.take(size);
  // No plugin name: each module needs its own copy (named plugins are deduplicated app-wide).
  // Bytes (not a Response) are turned into a Response by Elysia in one step with set.headers and
  // set.status: a Response returned here costs a second one to merge the headers — worth it only
  // to reuse a large answer's buffer, whose bytes are copied into a Response here, before another
  // answer is written there (Elysia adds the hooks' headers to it).
  // (Elysia's types ask for a Response; at run time any answer value is mapped.)
  return new Elysia().mapResponse({ as: "scoped" }, ({ request, responseValue, set }) => {
    const bytes = prebuiltAnswerBytes(request, responseValue, set.headers as Record<string, string>, allocate);
    if (bytes && buffer.holds(bytes)) return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: set.headers as Record<string, string> });
    return bytes as unknown as Response | undefined;
  });
}

/**
 * The same zod schema for the OpenAPI document, without the per-request response validation
 * (for answers built from cached, already-checked data: validating a 30-entry answer on every
 * request cost more than computing it). Tests check such answers against the real schema.
 */
export function documentedOnly(schema: z.ZodType): z.ZodType<unknown> {
  const copy = schema.clone();
  const standard = (schema as unknown as { "~standard": Record<string, unknown> })["~standard"];
  Object.defineProperty(copy, "~standard", { value: { ...standard, validate: (value: unknown) => ({ value }) }, enumerable: false });
  return copy;
}
