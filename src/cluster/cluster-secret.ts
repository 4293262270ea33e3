import { timingSafeEqual } from "node:crypto";

const digest = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest();

/**
 * Whether a request carries the cluster's shared secret as `Authorization: Bearer <secret>`.
 * Compared in constant time (digests of equal length, whatever was sent); never logged.
 */
export function presentsClusterSecret(request: Request, secret: string): boolean {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return timingSafeEqual(digest(match ? match[1]! : ""), digest(secret)) && match !== null;
}

/** The header a replica sends to its primary. */
export function clusterAuthorization(secret: string): Record<string, string> {
  return { authorization: `Bearer ${secret}` };
}
