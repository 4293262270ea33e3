import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { safeFileName, saveResponse, verifyFile } from "../../../src/ingest/sources/download.ts";
import { HttpError } from "../../../src/ingest/sources/http.ts";
import { priceFullGz, tempDir, zipOf } from "../../helpers/ingest/fake-portal.ts";

describe("saveResponse", () => {
  test("writes a whole gzip file into place", async () => {
    const dir = tempDir();
    const gz = priceFullGz("7290058140886", "1");
    const saved = await saveResponse(new Response(gz), dir, "PriceFull7290058140886-001-202611220300.gz");
    expect(saved.bytes).toBe(gz.length);
    expect(readFileSync(saved.path)).toEqual(Buffer.from(gz));
    expect(readdirSync(dir)).toEqual(["PriceFull7290058140886-001-202611220300.gz"]);
  });

  test("a truncated gzip is refused (retryable) and leaves nothing behind", async () => {
    const dir = tempDir();
    const gz = priceFullGz("7290058140886", "1", 50);
    const error = await saveResponse(new Response(gz.subarray(0, gz.length - 40)), dir, "PriceFull.gz").catch((e) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("truncated");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a body shorter than its Content-Length is truncated", async () => {
    const dir = tempDir();
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode("<Root>"));
        c.close();
      },
    });
    const error = await saveResponse(new Response(stream, { headers: { "content-length": "100" } }), dir, "Stores1-202611220500.xml").catch((e) => e);
    expect(error.message).toContain("6 of 100 bytes");
    expect(existsSync(join(dir, "Stores1-202611220500.xml"))).toBe(false);
  });

  test("a transport-encoded body (Content-Encoding) is not judged by its Content-Length", async () => {
    const dir = tempDir();
    const xml = new TextEncoder().encode("<Root><Items Count=\"0\"/></Root>");
    const saved = await saveResponse(new Response(xml, { headers: { "content-encoding": "gzip", "content-length": "12" } }), dir, "Stores1-202611220500.xml");
    expect(saved.bytes).toBe(xml.length);
  });

  test("non-2xx and oversized bodies are refused", async () => {
    const dir = tempDir();
    expect((await saveResponse(new Response("x", { status: 503 }), dir, "a.gz").catch((e) => e)).retryable).toBe(true);
    // A listed file's 404 is retried (issue 40: Carrefour answers 404 under load); 403 is not.
    expect((await saveResponse(new Response("x", { status: 404 }), dir, "a.gz").catch((e) => e)).retryable).toBe(true);
    expect((await saveResponse(new Response("x", { status: 403 }), dir, "a.gz").catch((e) => e)).retryable).toBe(false);
    expect((await saveResponse(new Response("x".repeat(100)), dir, "a.xml", 10).catch((e) => e)).message).toContain("larger than");
  });
});

describe("verifyFile", () => {
  const dir = tempDir();
  let n = 0;
  const verify = (bytes: Uint8Array, maxInflated?: number) => {
    const path = join(dir, `f${++n}`);
    writeFileSync(path, bytes);
    return verifyFile(path, `f${n}`, maxInflated);
  };

  test("ZIP under a .gz name passes when whole, fails when cut", async () => {
    const zip = zipOf("PriceFull.xml", new TextEncoder().encode("<Root/>"));
    await verify(zip);
    await expect(verify(zip.subarray(0, zip.length - 10))).rejects.toThrow(/truncated ZIP/);
  });

  test("an HTML page is never saved as a price file; empty is refused", async () => {
    await expect(verify(new TextEncoder().encode("<!DOCTYPE html><html><form>login</form>"))).rejects.toThrow(/HTML page/);
    await expect(verify(new Uint8Array())).rejects.toThrow(/empty/);
    await verify(new TextEncoder().encode("\uFEFF<?xml version='1.0'?><Root/>"));
  });

  test("gzip is checked by streaming it: a cut copy is retryable, a bomb beyond the limit is refused for good", async () => {
    const gz = priceFullGz("7290058140886", "1", 200);
    await verify(gz);
    const cut = await verify(gz.subarray(0, gz.length >> 1)).catch((e) => e);
    expect(cut).toMatchObject({ retryable: true });
    expect(cut.message).toContain("truncated or corrupt gzip");
    // 64 MiB of zeros gzip to ~64 KiB.
    const bomb = Bun.gzipSync(new Uint8Array(64 * 1024 * 1024));
    const refused = await verify(bomb, 1024 * 1024).catch((e) => e);
    expect(refused).toMatchObject({ retryable: false });
    expect(refused.message).toContain("decompresses beyond 1048576 bytes");
  });

  test("safeFileName keeps files inside their folder", () => {
    expect(safeFileName("../../etc/passwd")).toBe("passwd");
    expect(safeFileName("..hidden")).toBe("hidden");
    expect(() => safeFileName("/")).toThrow();
  });
});
