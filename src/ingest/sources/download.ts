import { createReadStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { createGunzip } from "node:zlib";
import { BlockedError, HttpError, refusal } from "./http.ts";

/** Largest file accepted from a portal (Super-Pharm's PriceFull is ~40 MB of XML, far less gzipped). */
export const MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024;
/**
 * Largest decompressed size accepted when checking a gzip file is whole — the import's own
 * ceiling per file (DEFAULT_MAX_FILE_BYTES of src/ingest/run/import.ts), beyond which it refuses the file.
 */
export const MAX_GUNZIP_BYTES = 256 * 1024 * 1024;

/**
 * A file name safe to write: no folders, no leading dots, no control characters.
 * @example safeFileName("../../etc/passwd") // "passwd"
 */
export function safeFileName(name: string): string {
  const bare = (name.split(/[\\/]/).pop() ?? "").replace(/[\x00-\x1f<>:"|?*]/g, "_").replace(/^\.+/, "");
  if (!bare) throw new HttpError(`unusable file name "${name}"`, null, false);
  return bare;
}

async function readAt(path: string, position: number, length: number): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const buffer = new Uint8Array(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Decompresses a gzip file as a stream, keeping nothing: resolves when whole, rejects when cut or too big. */
function gunzipWhole(path: string, fileName: string, maxInflated: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let inflated = 0;
    const input = createReadStream(path);
    const gunzip = createGunzip();
    const fail = (error: HttpError) => {
      input.destroy();
      gunzip.destroy();
      reject(error);
    };
    gunzip.on("data", (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > maxInflated) fail(new HttpError(`${fileName}: decompresses beyond ${maxInflated} bytes`, null, false));
    });
    gunzip.once("end", () => resolve());
    gunzip.once("error", (error) => fail(new HttpError(`${fileName}: truncated or corrupt gzip (${error.message})`, null, true)));
    input.once("error", (error) => fail(new HttpError(`${fileName}: ${error.message}`, null, true)));
    input.pipe(gunzip);
  });
}

/**
 * Checks a downloaded file on disk is whole, without holding it in memory: gzip must decompress
 * to the end (streamed, at most `maxInflated` bytes), ZIP must carry its end-of-central-directory
 * record, and an HTML page (a login or error page served with 200) is refused. Throws a retryable
 * HttpError for a truncated file.
 * @example await verifyFile("/data/downloads/shufersal/2026-11-22/PriceFull….gz.part", "PriceFull….gz") // a cut copy throws
 */
export async function verifyFile(path: string, fileName: string, maxInflated = MAX_GUNZIP_BYTES): Promise<void> {
  const size = (await stat(path)).size;
  if (size === 0) throw new HttpError(`${fileName}: empty download`, null, true);
  const head = await readAt(path, 0, 512);
  if (head[0] === 0x1f && head[1] === 0x8b) return gunzipWhole(path, fileName, maxInflated);
  if (head[0] === 0x50 && head[1] === 0x4b) {
    const from = Math.max(0, size - 65_557);
    const tail = await readAt(path, from, size - from);
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail[i] === 0x50 && tail[i + 1] === 0x4b && tail[i + 2] === 0x05 && tail[i + 3] === 0x06) return;
    }
    throw new HttpError(`${fileName}: truncated ZIP (no end of central directory)`, null, true);
  }
  const text = new TextDecoder().decode(head).replace(/^\uFEFF/, "").trimStart().toLowerCase();
  if (text.startsWith("<!doctype html") || text.startsWith("<html")) {
    const page = new TextDecoder().decode(await readAt(path, 0, 20_000));
    if (refusal(200, page)) throw new BlockedError(`${fileName}: a firewall challenge page instead of the file`, null);
    throw new HttpError(`${fileName}: got an HTML page instead of the file`, null, false);
  }
}

export interface SavedFile {
  path: string;
  bytes: number;
}

/**
 * Streams a response body to `<dir>/<fileName>` through a `.part` file (nothing held in memory):
 * refuses non-2xx (404, 408, 429 and 5xx as retryable), bodies over MAX_DOWNLOAD_BYTES, a body shorter than its Content-Length, and
 * files failing verifyFile; renames into place only when whole.
 *
 * @example await saveResponse(await fetch(url), "/data/downloads/shufersal/2026-11-22", "PriceFull….gz")
 */
export async function saveResponse(response: Response, dir: string, fileName: string, maxBytes = MAX_DOWNLOAD_BYTES): Promise<SavedFile> {
  if (response.status === 247 || response.status === 403 || response.status === 503) {
    const refused = refusal(response.status, await response.text().catch(() => ""));
    if (refused && response.status !== 403) throw new BlockedError(`${refused} (downloading ${fileName})`, response.status);
    if (response.status === 403) throw new HttpError(`HTTP 403 downloading ${fileName}`, 403, false);
    throw new HttpError(`HTTP ${response.status} downloading ${fileName}`, response.status, true);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    const status = response.status;
    // A listed file answering 404 is retried too: portals under load (Carrefour) answer 404 for
    // files they list, and a retry a moment later gets the file.
    throw new HttpError(`HTTP ${status} downloading ${fileName}`, status, status === 404 || status === 408 || status === 429 || status >= 500);
  }
  const name = safeFileName(fileName);
  await mkdir(dir, { recursive: true });
  const final = join(dir, name);
  const part = final + ".part";
  // With a Content-Encoding the body arrives decoded and Content-Length counts the encoded bytes.
  const encoding = (response.headers.get("content-encoding") ?? "identity").toLowerCase();
  const declared = encoding === "identity" ? Number(response.headers.get("content-length") ?? NaN) : NaN;
  let total = 0;
  const handle = await open(part, "w");
  try {
    if (response.body) {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        total += chunk.length;
        if (total > maxBytes) throw new HttpError(`${fileName}: larger than ${maxBytes} bytes`, null, false);
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
    await verifyFile(part, fileName);
  } catch (error) {
    await rm(part, { force: true });
    throw error;
  }
  await rename(part, final);
  return { path: final, bytes: total };
}
