/**
 * The service's icon at /favicon.ico (browsers ask for it on every page they open; a 404 there
 * filled the request log): a 32×32 price tag in the portal's navy, drawn here as pixels, stored as
 * a PNG inside an ICO container (the PNG form of ICO, read by every current browser). Built once.
 */

import { Elysia } from "elysia";
import { deflateSync } from "node:zlib";

const SIZE = 32;
const NAVY = [0x12, 0x3a, 0x5e, 0xff] as const;
const WHITE = [0xff, 0xff, 0xff, 0xff] as const;
const CLEAR = [0, 0, 0, 0] as const;

/** The tag: a square turned 45° with its left corner cut by a hole, on transparency. */
function pixel(x: number, y: number): readonly number[] {
  const cx = x + 0.5 - SIZE / 2;
  const cy = y + 0.5 - SIZE / 2;
  const inTag = Math.abs(cx) + Math.abs(cy) <= 14.5 && cx > -12.5;
  if (!inTag) return CLEAR;
  const hole = (cx + 6) ** 2 + cy ** 2 <= 9;
  const stripe = Math.abs(cx - 3 - cy * 0) <= 1 && Math.abs(cy) <= 6; // a white bar: the "price"
  return hole || stripe ? (hole ? CLEAR : WHITE) : NAVY;
}

function crc32Be(bytes: Uint8Array): Uint8Array {
  const crc = Bun.hash.crc32(bytes) >>> 0;
  return new Uint8Array([crc >>> 24, (crc >>> 16) & 0xff, (crc >>> 8) & 0xff, crc & 0xff]);
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const typed = new Uint8Array(4 + data.length);
  typed.set(new TextEncoder().encode(type), 0);
  typed.set(data, 4);
  const out = new Uint8Array(8 + data.length + 4);
  new DataView(out.buffer).setUint32(0, data.length);
  out.set(typed, 4);
  out.set(crc32Be(typed), 8 + data.length);
  return out;
}

function png(): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, SIZE);
  view.setUint32(4, SIZE);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter method, no interlace
  const raw = new Uint8Array(SIZE * (1 + SIZE * 4));
  for (let y = 0; y < SIZE; y++) {
    const row = y * (1 + SIZE * 4);
    for (let x = 0; x < SIZE; x++) raw.set(pixel(x, y), row + 1 + x * 4);
  }
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: 9 })), chunk("IEND", new Uint8Array(0))];
  return concat(parts);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** An ICO file holding one PNG image. */
function ico(image: Uint8Array): Uint8Array {
  const head = new Uint8Array(6 + 16);
  const view = new DataView(head.buffer);
  view.setUint16(2, 1, true); // type: icon
  view.setUint16(4, 1, true); // one image
  head[6] = SIZE;
  head[7] = SIZE;
  view.setUint16(10, 1, true); // colour planes
  view.setUint16(12, 32, true); // bits per pixel
  view.setUint32(14, image.length, true);
  view.setUint32(18, head.length, true);
  return concat([head, image]);
}

let icon: Uint8Array | null = null;

/** The icon's bytes (ICO with a PNG inside). */
export function faviconBytes(): Uint8Array {
  return (icon ??= ico(png()));
}

/** GET /favicon.ico: public, cached for a day. */
export function faviconRoute() {
  return new Elysia({ name: "favicon" }).get(
    "/favicon.ico",
    () => new Response(faviconBytes() as Uint8Array<ArrayBuffer>, { headers: { "content-type": "image/x-icon", "cache-control": "public, max-age=86400" } }),
    { detail: { hide: true } },
  );
}
