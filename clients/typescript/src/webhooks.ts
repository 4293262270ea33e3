/**
 * Verifying a price alert's webhook request: `Mehir-Signature: t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<raw body>" keyed with the alert's secret>`. Checked on the raw bytes (not
 * re-serialized JSON), in constant time (Web Crypto's HMAC verify), refusing a `t` more than
 * `toleranceSeconds` from the clock (replays). Several `v1` entries are accepted; one must match.
 */
import type { WebhookEvent } from "./types.ts";

export const SIGNATURE_HEADER = "Mehir-Signature";
export const EVENT_ID_HEADER = "Mehir-Event-Id";

export interface VerifyOptions {
  /** How far `t` may be from the clock, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The clock, in unix seconds (default now). */
  now?: number;
}

export class WebhookSignatureError extends Error {
  override readonly name = "WebhookSignatureError";
}

const encoder = new TextEncoder();

function bytesOf(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === "string") return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-f]{64}$/.test(hex)) return null;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/**
 * Whether `header` (the `Mehir-Signature` value) signs `rawBody` with `secret` (`whsec_…`) at a
 * time within the tolerance.
 * @example if (!(await verifyWebhookSignature(req.headers.get("mehir-signature"), await req.text(), secret))) return new Response(null, { status: 400 });
 */
export async function verifyWebhookSignature(header: string | null | undefined, rawBody: string | Uint8Array | ArrayBuffer, secret: string, options: VerifyOptions = {}): Promise<boolean> {
  if (!header) return false;
  const parts = header.split(",").map((part) => {
    const at = part.indexOf("=");
    return at < 0 ? ["", ""] : [part.slice(0, at).trim(), part.slice(at + 1).trim()];
  });
  const t = parts.find(([name]) => name === "t")?.[1] ?? "";
  if (!/^\d{1,12}$/.test(t)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(t)) > (options.toleranceSeconds ?? 300)) return false;
  const signatures = parts.filter(([name]) => name === "v1").map(([, value]) => hexBytes(value!));
  if (!signatures.some((s) => s !== null)) return false;
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const body = bytesOf(rawBody);
  const signed = new Uint8Array(t.length + 1 + body.length);
  signed.set(encoder.encode(`${t}.`));
  signed.set(body, t.length + 1);
  for (const signature of signatures) {
    if (signature && (await crypto.subtle.verify("HMAC", key, signature, signed))) return true;
  }
  return false;
}

/**
 * The event of a verified webhook request; throws WebhookSignatureError when the signature does
 * not verify. Deduplicate on its `id` (= the `Mehir-Event-Id` header): a retry repeats it.
 */
export async function parseWebhookEvent(header: string | null | undefined, rawBody: string | Uint8Array | ArrayBuffer, secret: string, options: VerifyOptions = {}): Promise<WebhookEvent> {
  if (!(await verifyWebhookSignature(header, rawBody, secret, options))) throw new WebhookSignatureError("The Mehir-Signature header does not verify (wrong secret, altered body, or a timestamp outside the tolerance).");
  return JSON.parse(typeof rawBody === "string" ? rawBody : new TextDecoder().decode(bytesOf(rawBody))) as WebhookEvent;
}
