import type { DataSetName } from "../../data/data-state.ts";
import { ApiError } from "../../errors/api-error.ts";

/**
 * Opaque, URL-safe pagination cursors bound to a data set, its data version and the query they
 * were made for: a cursor of the other data set (a sandbox cursor sent with a live key, or the
 * reverse), of an older data version or of another query is `invalid_cursor`.
 */
interface CursorBody<T> {
  /** The data set, when not the live one (cursors made before test mode had a sandbox lack it). */
  s?: "sandbox";
  v: number;
  q: string;
  k: T;
}

/** What a cursor is bound to besides its query. */
export interface CursorScope {
  dataSet: DataSetName;
  version: number;
}

/** The scope of cursors made now on a data set (`deps.data`). */
export function cursorScope(data: { name: DataSetName; current: { version: number } }): CursorScope {
  return { dataSet: data.name, version: data.current.version };
}

export function encodeCursor<T>(scope: CursorScope, queryKey: string, position: T): string {
  const body: CursorBody<T> = scope.dataSet === "sandbox" ? { s: "sandbox", v: scope.version, q: hashKey(queryKey), k: position } : { v: scope.version, q: hashKey(queryKey), k: position };
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

/** Decodes a cursor or throws 400 invalid_cursor. */
export function decodeCursor<T>(cursor: string, scope: CursorScope, queryKey: string, isPosition: (k: unknown) => k is T): T {
  let body: CursorBody<unknown>;
  try {
    if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw new Error("shape");
    body = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new ApiError("invalid_cursor", "The cursor is malformed; use meta.next_cursor exactly as returned.", { param: "cursor" });
  }
  if (!body || typeof body !== "object" || body.q !== hashKey(queryKey) || !isPosition(body.k)) {
    throw new ApiError("invalid_cursor", "The cursor belongs to another query.", { param: "cursor" });
  }
  if ((body.s === "sandbox" ? "sandbox" : "live") !== scope.dataSet) {
    const made = body.s === "sandbox" ? "with a test key (sandbox data)" : "with a live key (live data)";
    throw new ApiError("invalid_cursor", `This cursor was made ${made}; page on with a key of the same mode.`, { param: "cursor" });
  }
  if (body.v !== scope.version) {
    throw new ApiError("invalid_cursor", "The data was refreshed since this cursor was made; start again from the first page.", { param: "cursor" });
  }
  return body.k;
}

function hashKey(key: string): string {
  return new Bun.CryptoHasher("sha256").update(key).digest("base64url").slice(0, 12);
}
