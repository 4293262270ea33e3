import type { LocalTime } from "./clock.ts";
import { instant } from "./clock.ts";
import { concat } from "./encoding.ts";

/**
 * Deterministic compression for demo files: the same bytes and time give the same output.
 * gzip carries the file's time in its header; zip (what Bina portals serve under a `.gz`
 * name) holds one deflated entry with a DOS timestamp.
 */
export type Compression = "gzip" | "zip" | "none";

export function compress(data: Uint8Array<ArrayBuffer>, kind: Compression, entryName: string, time: LocalTime): Uint8Array {
  if (kind === "none") return data;
  if (kind === "gzip") return gzip(data, time);
  return zip(data, entryName, time);
}

function gzip(data: Uint8Array<ArrayBuffer>, time: LocalTime): Uint8Array {
  const out = Bun.gzipSync(data, { level: 1 });
  // Bytes 4–7: MTIME, little-endian seconds since the epoch (Bun writes 0).
  new DataView(out.buffer, out.byteOffset, out.byteLength).setUint32(4, Math.floor(instant(time).getTime() / 1000), true);
  return out;
}

function zip(data: Uint8Array<ArrayBuffer>, entryName: string, time: LocalTime): Uint8Array {
  const name = new TextEncoder().encode(entryName);
  const deflated = Bun.deflateSync(data, { level: 1 });
  const crc = Bun.hash.crc32(data) >>> 0;
  const dosTime = (time.h << 11) | (time.mi << 5) | Math.floor(time.s / 2);
  const dosDate = ((time.y - 1980) << 9) | (time.mo << 5) | time.d;

  const local = new DataView(new ArrayBuffer(30));
  local.setUint32(0, 0x04034b50, true);
  local.setUint16(4, 20, true); // version needed
  local.setUint16(6, 0, true); // flags
  local.setUint16(8, 8, true); // deflate
  local.setUint16(10, dosTime, true);
  local.setUint16(12, dosDate, true);
  local.setUint32(14, crc, true);
  local.setUint32(18, deflated.length, true);
  local.setUint32(22, data.length, true);
  local.setUint16(26, name.length, true);
  local.setUint16(28, 0, true);

  const central = new DataView(new ArrayBuffer(46));
  central.setUint32(0, 0x02014b50, true);
  central.setUint16(4, 20, true); // version made by (MS-DOS)
  central.setUint16(6, 20, true);
  central.setUint16(8, 0, true);
  central.setUint16(10, 8, true);
  central.setUint16(12, dosTime, true);
  central.setUint16(14, dosDate, true);
  central.setUint32(16, crc, true);
  central.setUint32(20, deflated.length, true);
  central.setUint32(24, data.length, true);
  central.setUint16(28, name.length, true);
  // extra, comment, disk, internal and external attributes stay 0
  central.setUint32(42, 0, true); // offset of the local header

  const centralOffset = 30 + name.length + deflated.length;
  const centralSize = 46 + name.length;
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, 1, true);
  end.setUint16(10, 1, true);
  end.setUint32(12, centralSize, true);
  end.setUint32(16, centralOffset, true);

  return concat(
    new Uint8Array(local.buffer),
    name,
    deflated,
    new Uint8Array(central.buffer),
    name,
    new Uint8Array(end.buffer),
  );
}
