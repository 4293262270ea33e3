import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { checkTarget, RefusedTarget, type ResolvedAddress, type UrlPolicy } from "./url-guard.ts";

/** What one delivery attempt came to: the answer's status, or why there was none. */
export type SendResult = { status: number } | { error: string };

/** Sends one webhook request; injected so the scheduler can be tested without a network. */
export type Sender = (url: string, headers: Record<string, string>, body: string, timeoutMs: number) => Promise<SendResult>;

/** At most this much of an answer is read (and then discarded): receivers should answer quickly and briefly. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * The real sender: POST with node:http(s), connecting only to the addresses the URL guard checked
 * (the connection's lookup returns them, so the name is not resolved a second time), never
 * following redirects, giving up after `timeoutMs` in all (connect, send, answer).
 */
export function httpSender(policy: UrlPolicy): Sender {
  return async (target, headers, body, timeoutMs) => {
    let url: URL;
    let addresses: ResolvedAddress[];
    try {
      ({ url, addresses } = await checkTarget(target, policy));
    } catch (error) {
      return { error: error instanceof RefusedTarget ? `refused: ${error.message}` : String(error) };
    }
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    };
    const client = url.protocol === "https:" ? https : http;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = client.request(
        url,
        {
          method: "POST",
          lookup: pinned,
          headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "mehir-webhooks/1" },
        },
        (response) => {
          let read = 0;
          response.on("data", (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) response.destroy();
          });
          const done = () => finish({ status: response.statusCode ?? 0 });
          response.on("end", done);
          response.on("close", done);
          response.on("error", done);
        },
      );
      const timer = setTimeout(() => {
        finish({ error: `no answer within ${timeoutMs / 1000} s` });
        request.destroy();
      }, timeoutMs);
      request.on("error", (error) => finish({ error: error.message }));
      request.end(body);
    });
  };
}
