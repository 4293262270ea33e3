const encoder = new TextEncoder();

/**
 * Builds a JSON answer out of UTF-8 pieces: fragments serialized once and kept as bytes (basket
 * lines) are copied as they are, instead of being joined as strings and encoded again.
 *
 * @example const out = new JsonBytes(); out.text('{"a":['); out.bytes(cached); out.text("]}"); out.finish()
 */
export class JsonBytes {
  private readonly parts: Uint8Array[] = [];
  private length = 0;

  /** Appends text (encoded to UTF-8 now). */
  text(text: string): this {
    return this.bytes(encoder.encode(text));
  }

  /** Appends UTF-8 bytes as they are. */
  bytes(bytes: Uint8Array): this {
    this.parts.push(bytes);
    this.length += bytes.length;
    return this;
  }

  /** The pieces as one buffer. */
  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}

/** UTF-8 bytes of a JSON text. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
