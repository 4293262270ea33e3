import { mkdir, open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { HttpError } from "./http.ts";

/** Largest file accepted from a portal (Super-Pharm's PriceFull is ~40 MB of XML, far less gzipped). */
export const MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024;
/** Largest decompressed size accepted when checking a gzip file is whole. */
export const MAX_GUNZIP_BYTES = 2 * 1024 * 1024 * 1024 - 1;

/** A file name safe to write: no folders, no leading dots, no control characters. */
export function safeFileName(name: string): string {
  const bare = (name.split(/[\\/]/).pop() ?? "").replace(/[\x00-\x1f<>:"|?*]/g, "_").replace(/^\.+/, "");
  if (!bare) throw new HttpError(`unusable file name "${name}"`, null, false);
  return bare;
}

/**
 * Checks a downloaded file is whole: gzip must decompress to the end, ZIP must carry its
 * end-of-central-directory record, and an HTML page (a login or error page served with 200)
 * is refused. Throws a retryable HttpError for a truncated file.
 * @example verifyPayload(Bun.gzipSync(xml), "PriceFull….gz") // passes; a cut copy throws
 */
export function verifyPayload(bytes: Uint8Array, fileName: string): void {
  if (bytes.length === 0) throw new HttpError(`${fileName}: empty download`, null, true);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      gunzipSync(bytes, { maxOutputLength: MAX_GUNZIP_BYTES });
    } catch (error) {
      const message = (error as Error).message;
      if (/maxOutputLength|buffer|too large/i.test(message)) throw new HttpError(`${fileName}: decompresses beyond the size limit`, null, false);
      throw new HttpError(`${fileName}: truncated or corrupt gzip (${message})`, null, true);
    }
    return;
  }
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    const tail = bytes.subarray(Math.max(0, bytes.length - 65_557));
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail[i] === 0x50 && tail[i + 1] === 0x4b && tail[i + 2] === 0x05 && tail[i + 3] === 0x06) return;
    }
    throw new HttpError(`${fileName}: truncated ZIP (no end of central directory)`, null, true);
  }
  const head = new TextDecoder().decode(bytes.subarray(0, 512)).replace(/^\uFEFF/, "").trimStart().toLowerCase();
  if (head.startsWith("<!doctype html") || head.startsWith("<html")) throw new HttpError(`${fileName}: got an HTML page instead of the file`, null, false);
}

export interface SavedFile {
  path: string;
  bytes: number;
}

/**
 * Streams a response body to `<dir>/<fileName>` through a `.part` file: refuses non-2xx, bodies
 * over MAX_DOWNLOAD_BYTES, a body shorter than its Content-Length, and payloads failing
 * verifyPayload; renames into place only when whole.
 *
 * @example await saveResponse(await fetch(url), "/data/downloads/shufersal/2026-11-22", "PriceFull….gz")
 */
export async function saveResponse(response: Response, dir: string, fileName: string, maxBytes = MAX_DOWNLOAD_BYTES): Promise<SavedFile> {
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    const status = response.status;
    throw new HttpError(`HTTP ${status} downloading ${fileName}`, status, status === 408 || status === 429 || status >= 500);
  }
  const name = safeFileName(fileName);
  await mkdir(dir, { recursive: true });
  const final = join(dir, name);
  const part = final + ".part";
  // With a Content-Encoding the body arrives decoded and Content-Length counts the encoded bytes.
  const encoding = (response.headers.get("content-encoding") ?? "identity").toLowerCase();
  const declared = encoding === "identity" ? Number(response.headers.get("content-length") ?? NaN) : NaN;
  const chunks: Uint8Array[] = [];
  let total = 0;
  const handle = await open(part, "w");
  try {
    if (response.body) {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        total += chunk.length;
        if (total > maxBytes) throw new HttpError(`${fileName}: larger than ${maxBytes} bytes`, null, false);
        chunks.push(chunk);
        await handle.write(chunk);
      }
    }
  } catch (error) {
    await handle.close();
    await rm(part, { force: true });
    if (error instanceof HttpError) throw error;
    const e = error as Error;
    const timedOut = e?.name === "TimeoutError" || e?.name === "AbortError";
    throw new HttpError(`${fileName}: ${timedOut ? "timed out during download" : `download broke off (${e?.message ?? e})`}`, null, true);
  }
  await handle.close();
  try {
    if (Number.isFinite(declared) && declared !== total) {
      throw new HttpError(`${fileName}: truncated download (${total} of ${declared} bytes)`, null, true);
    }
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    verifyPayload(bytes, fileName);
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
  await rename(part, final);
  return { path: final, bytes: total };
}
