import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The `Mehir-Signature` header of a webhook request: `t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>" keyed with the alert's secret>` (the scheme Stripe's webhooks use). The
 * timestamp is signed too, so a receiver can refuse old replays.
 *
 * @example signatureHeader("whsec_…", 1764000000, '{"id":"evt_…"}') // "t=1764000000,v1=5f0c…"
 */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, body)}`;
}

function hmacHex(secret: string, timestamp: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

/**
 * Checks a `Mehir-Signature` header as a receiver should: some `v1` matches (constant-time) and
 * `t` is within `toleranceSeconds` of `nowSeconds`. docs/api.md shows the same in TypeScript and Python.
 */
export function verifySignature(header: string, secret: string, body: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = header.split(",").map((p) => p.trim().split("="));
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(secret, t, body), "hex");
  return parts.some(([k, v]) => {
    if (k !== "v1" || !v || !/^[0-9a-f]{64}$/.test(v)) return false;
    return timingSafeEqual(Buffer.from(v, "hex"), expected);
  });
}
