import { describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { decompress, sniffCompression } from "../../../src/ingest/files/compression.ts";
import { FileRejectedError } from "../../../src/ingest/files/rejected.ts";
import { readZipEntries } from "../../../src/ingest/files/zip.ts";
import { makeZip } from "../../helpers/ingest/zip.ts";

const xml = new TextEncoder().encode("<Root><Items><Item><ItemCode>1</ItemCode></Item></Items></Root>");
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function rejected(fn: () => unknown): FileRejectedError {
  try {
    fn();
  } catch (error) {
    if (error instanceof FileRejectedError) return error;
    throw error;
  }
  throw new Error("expected a FileRejectedError");
}

describe("sniffCompression", () => {
  test("by magic bytes, not by name", () => {
    expect(sniffCompression(gzipSync(xml))).toBe("gzip");
    expect(sniffCompression(makeZip([{ name: "a.xml", data: xml }]))).toBe("zip");
    expect(sniffCompression(xml)).toBe("plain");
    expect(sniffCompression(new Uint8Array())).toBe("plain");
  });
});

describe("decompress", () => {
  test("gzip, plain and zip give the same XML", () => {
    expect(text(decompress(gzipSync(xml)).bytes)).toBe(text(xml));
    expect(text(decompress(xml).bytes)).toBe(text(xml));
    const zipped = decompress(makeZip([{ name: "PriceFull1-001-202401010000.xml", data: xml }]));
    expect(zipped.compression).toBe("zip");
    expect(text(zipped.bytes)).toBe(text(xml));
  });

  test("stored zip entries are read as is", () => {
    expect(text(decompress(makeZip([{ name: "a.xml", data: xml, store: true }])).bytes)).toBe(text(xml));
  });

  test("a zip with several entries yields the XML one and says what it ignored", () => {
    const zip = makeZip([
      { name: "readme.txt", data: new TextEncoder().encode("hello") },
      { name: "PriceFull.xml", data: xml },
    ]);
    expect(readZipEntries(zip).map((e) => e.name)).toEqual(["readme.txt", "PriceFull.xml"]);
    const out = decompress(zip);
    expect(text(out.bytes)).toBe(text(xml));
    expect(out.warnings).toEqual([]);
    const two = decompress(makeZip([{ name: "a.xml", data: xml }, { name: "b.xml", data: new TextEncoder().encode("<A/>") }]));
    expect(text(two.bytes)).toBe(text(xml));
    expect(two.warnings[0]).toContain("b.xml");
  });

  test("multi-member gzip is read whole", () => {
    const half = xml.length >> 1;
    const multi = Buffer.concat([gzipSync(xml.subarray(0, half)), gzipSync(xml.subarray(half))]);
    expect(text(decompress(multi).bytes)).toBe(text(xml));
    // Members of the same length: the last trailer's size matches the first member's output,
    // so the native path (first member only) must also be held to the trailer's CRC.
    const first = new TextEncoder().encode("<Root><Items><Item>1</Item>  ");
    const second = new TextEncoder().encode("<Item>2</Item></Items></Root>");
    expect(first.length).toBe(second.length);
    const same = Buffer.concat([gzipSync(first), gzipSync(second)]);
    expect(text(decompress(same).bytes)).toBe(text(first) + text(second));
  });

  test("a gzip bomb stops at the limit", () => {
    const bomb = gzipSync(new Uint8Array(64 * 2 ** 20)); // 64 MiB of zeros → ~64 kB
    const error = rejected(() => decompress(bomb, { maxBytes: 2 ** 20 }));
    expect(error.reason).toBe("too-large");
    expect(decompress(bomb, { maxBytes: 128 * 2 ** 20 }).bytes.length).toBe(64 * 2 ** 20);
  });

  test("a zip bomb stops at the limit, even when the directory lies about the size", () => {
    const zeros = new Uint8Array(8 * 2 ** 20);
    expect(rejected(() => decompress(makeZip([{ name: "a.xml", data: zeros }]), { maxBytes: 2 ** 20 })).reason).toBe("too-large");
    const lying = makeZip([{ name: "a.xml", data: zeros }]);
    const view = new DataView(lying.buffer, lying.byteOffset, lying.byteLength);
    // Patch the central directory's uncompressed size to 10 bytes.
    const central = lying.length - 22 - (46 + 5);
    view.setUint32(central + 24, 10, true);
    expect(rejected(() => decompress(lying, { maxBytes: 2 ** 20 })).reason).toBe("too-large");
  });

  test("plain files over the limit are refused", () => {
    expect(rejected(() => decompress(xml, { maxBytes: 10 })).reason).toBe("too-large");
  });

  test("a cut gzip stream yields what inflates, flagged truncated", () => {
    const big = new TextEncoder().encode("<Root><Items>" + "<Item><ItemCode>123</ItemCode></Item>".repeat(5000) + "</Items></Root>");
    const gz = gzipSync(big);
    const out = decompress(gz.subarray(0, gz.length >> 1));
    expect(out.truncated).toBe(true);
    expect(out.bytes.length).toBeGreaterThan(0);
    expect(out.bytes.length).toBeLessThan(big.length);
    expect(text(out.bytes)).toStartWith("<Root><Items><Item>");
  });

  test("the native (libdeflate) paths give zlib's bytes, and zlib decides whenever they disagree", () => {
    const big = new TextEncoder().encode("<Root><Items>" + "<Item><ItemName>חלב 3%</ItemName><ItemCode>7290000066318</ItemCode></Item>".repeat(3000) + "</Items></Root>");
    expect(decompress(gzipSync(big)).bytes).toEqual(big);
    expect(decompress(makeZip([{ name: "a.xml", data: big }])).bytes).toEqual(big);
    // A directory that states a wrong (smaller or larger) size: the whole entry still inflates, by zlib.
    for (const stated of [10, big.length + 1]) {
      const zip = makeZip([{ name: "a.xml", data: big }]);
      new DataView(zip.buffer, zip.byteOffset, zip.byteLength).setUint32(zip.length - 22 - (46 + 5) + 24, stated, true);
      expect(decompress(zip).bytes).toEqual(big);
    }
    // A gzip whose CRC does not match its data is refused by both.
    const gz = new Uint8Array(gzipSync(big));
    gz[gz.length - 8] ^= 0xff;
    expect(rejected(() => decompress(gz)).reason).toBe("corrupt-compression");
  });

  test("corrupt gzip and zip are rejected", () => {
    const gz = gzipSync(new TextEncoder().encode("<Root>" + "<A>x</A>".repeat(1000) + "</Root>"));
    const corrupt = new Uint8Array(gz);
    for (let i = 20; i < 60; i++) corrupt[i] ^= 0x5a;
    expect(rejected(() => decompress(corrupt)).reason).toBe("corrupt-compression");
    expect(rejected(() => decompress(gz.subarray(0, 5))).reason).toBe("corrupt-compression");
    const zip = makeZip([{ name: "a.xml", data: xml }]);
    expect(rejected(() => decompress(zip.subarray(0, zip.length - 30))).reason).toBe("corrupt-compression");
    // Damaged deflate data inside an intact archive.
    const big = makeZip([{ name: "a.xml", data: new TextEncoder().encode("<Root>" + "<A>xyz</A>".repeat(2000) + "</Root>") }]);
    const damaged = new Uint8Array(big);
    for (let i = 40; i < 80; i++) damaged[i] ^= 0x5a;
    expect(rejected(() => decompress(damaged)).reason).toBe("corrupt-compression");
  });
});
