import { deflateRawSync } from "node:zlib";

/** A minimal zip writer (deflate or stored entries) for fixtures and tests. */
export function makeZip(entries: { name: string; data: Uint8Array; store?: boolean }[]): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = new TextEncoder().encode(entry.name);
    const body = entry.store ? entry.data : deflateRawSync(entry.data);
    const crc = Bun.hash.crc32(entry.data);
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, entry.store ? 0 : 8, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, entry.data.length, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, entry.store ? 0 : 8, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, body.length, true);
    cv.setUint32(24, entry.data.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, body);
    centrals.push(central);
    offset += local.length + body.length;
  }
  const centralSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  return Buffer.concat([...locals, ...centrals, end]);
}

/**
 * A hostile zip: one deflated stream and `names` central-directory records all pointing at its
 * local header (`copies` entries named PriceFull…-00N.xml): unpacked naively it writes
 * `copies × data.length` bytes from one small stream.
 */
export function overlappingZip(data: Uint8Array, copies: number): Uint8Array {
  const one = makeZip([{ name: "PriceFull7290058140886-001-202511021215.xml", data }]);
  const view = new DataView(one.buffer, one.byteOffset, one.byteLength);
  const end = one.length - 22;
  const centralAt = view.getUint32(end + 16, true);
  const central = one.subarray(centralAt, end);
  const records: Uint8Array[] = [];
  for (let i = 0; i < copies; i++) {
    const record = Uint8Array.from(central);
    // Same name length: only the store digits change (…-001-… → …-NNN-…).
    record.set(new TextEncoder().encode(String(i + 1).padStart(3, "0")), 46 + "PriceFull7290058140886-".length);
    records.push(record);
  }
  const eocd = Uint8Array.from(one.subarray(end));
  const ev = new DataView(eocd.buffer);
  ev.setUint16(8, copies, true);
  ev.setUint16(10, copies, true);
  ev.setUint32(12, central.length * copies, true);
  return Buffer.concat([one.subarray(0, centralAt), ...records, eocd]);
}

/** Hebrew letters and ASCII → windows-1255 bytes (enough for fixtures). */
export function encodeWindows1255(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) out[i] = c;
    else if (c >= 0x5d0 && c <= 0x5ea) out[i] = 0xe0 + (c - 0x5d0);
    else throw new Error(`no windows-1255 byte for U+${c.toString(16)}`);
  }
  return out;
}

/** UTF-16 bytes, little or big endian, with or without BOM. */
export function encodeUtf16(text: string, bigEndian: boolean, bom: boolean): Uint8Array {
  const source = bom ? "\uFEFF" + text : text;
  const out = new Uint8Array(source.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < source.length; i++) view.setUint16(i * 2, source.charCodeAt(i), !bigEndian);
  return out;
}
