import { ApiError } from "./problem.ts";

/**
 * Opaque, URL-safe pagination cursors bound to a data version and to the query they were
 * made for: a cursor from an older data version or another query is `invalid_cursor`.
 */
interface CursorBody<T> {
  v: number;
  q: string;
  k: T;
}

export function encodeCursor<T>(dataVersion: number, queryKey: string, position: T): string {
  const body: CursorBody<T> = { v: dataVersion, q: hashKey(queryKey), k: position };
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

/** Decodes a cursor or throws 400 invalid_cursor. */
export function decodeCursor<T>(cursor: string, dataVersion: number, queryKey: string, isPosition: (k: unknown) => k is T): T {
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
  if (body.v !== dataVersion) {
    throw new ApiError("invalid_cursor", "The data was refreshed since this cursor was made; start again from the first page.", { param: "cursor" });
  }
  return body.k;
}

function hashKey(key: string): string {
  return new Bun.CryptoHasher("sha256").update(key).digest("base64url").slice(0, 12);
}
