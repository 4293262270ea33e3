/**
 * The mehir API client: `createClient({ baseUrl, apiKey })` gives one method per operation of the
 * OpenAPI document, named after its operationId, resolving to the answer's body (the
 * `{ data, meta }` envelope); paged operations also have an `…All` async iterator over every
 * page's items. Error answers throw MehirError; 429 and 503 are retried after `Retry-After`
 * (bounded). No dependencies: fetch and Web Crypto (Node 18+, Bun, Deno, browsers).
 *
 * @example
 * const mehir = createClient({ baseUrl: "http://localhost:8080", apiKey: process.env.MEHIR_KEY });
 * const { data, meta } = await mehir.getPrices({ barcode: "7291252436027" });
 * for await (const store of mehir.listStoresAll({ city: "חיפה" })) console.log(store.name);
 */
import { OPERATIONS, PAGED, type Operations } from "./operations.ts";
import { MehirError } from "./errors.ts";
import { DEFAULT_RETRY, retryAfterSeconds, retryDelay, sleep, type RetryPolicy } from "./retry.ts";
import type { OperationId, RequestOptions } from "./types.ts";

export { MehirError, type ErrorCode, type Problem } from "./errors.ts";
export { verifyWebhookSignature, parseWebhookEvent, WebhookSignatureError, SIGNATURE_HEADER, EVENT_ID_HEADER, type VerifyOptions } from "./webhooks.ts";
export type { Input, Item, OperationId, Output, PageInput, RequestOptions, WebhookEvent } from "./types.ts";
export type { RetryPolicy } from "./retry.ts";
export type { Operations } from "./operations.ts";
export type { operations, components, paths } from "./openapi.d.ts";
export { OPERATIONS, PAGED };

export interface ClientOptions {
  /** The server's address, e.g. `http://localhost:8080` (a path prefix is kept). */
  baseUrl: string;
  /** A secret key (`sk_live_…`, `sk_test_…`), sent as `X-API-Key`; a `pk_live_…` key for the widget's data. Not needed for the probes and images. */
  apiKey?: string;
  /** Retries of 429 and 503 after `Retry-After` (default: 3 tries, 30 s of waiting in all); `false` never retries. */
  retry?: Partial<RetryPolicy> | false;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** The client: a method per operation (see Operations). */
export type MehirClient = Operations;

type Values = Record<string, unknown>;

export function createClient(options: ClientOptions): MehirClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const policy: RetryPolicy = options.retry === false ? { maxAttempts: 1, maxWaitSeconds: 0 } : { ...DEFAULT_RETRY, ...options.retry };
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);

  function request(id: OperationId, input: unknown): Request {
    const spec = OPERATIONS[id];
    const values: Values = { ...(spec.body === "whole" ? {} : (input as Values | undefined)) };
    let path: string = spec.path;
    for (const name of spec.pathParams) {
      const value = values[name];
      if (value === undefined || value === null || value === "") throw new TypeError(`${id}: \`${name}\` is required`);
      path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
      delete values[name];
    }
    const url = new URL(base + path);
    const headers = new Headers();
    if (options.apiKey) headers.set("X-API-Key", options.apiKey);
    if ("accept" in spec) headers.set("Accept", spec.accept);
    let body: string | undefined;
    if (spec.body === null) {
      for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    } else {
      headers.set("Content-Type", "application/json");
      body = JSON.stringify(spec.body === "whole" ? input : values);
    }
    return new Request(url, { method: spec.method, headers, body });
  }

  async function call(id: OperationId, input: unknown, callOptions: RequestOptions = {}): Promise<unknown> {
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const response = await fetchImpl(new Request(request(id, input), { signal: callOptions.signal }));
      if (response.ok) return await successBody(response);
      const body = await errorBody(response);
      const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
      const delay = retryDelay(response.status, retryAfter, attempt, waited, policy);
      if (delay === null) throw new MehirError(response.status, body, response.headers, retryAfter);
      await sleep(delay, callOptions.signal);
      waited += delay;
    }
  }

  async function* all(id: OperationId, input: Values | undefined, callOptions?: RequestOptions): AsyncGenerator<unknown, void, undefined> {
    let cursor: string | null = null;
    do {
      const page = (await call(id, { ...input, cursor: cursor ?? undefined }, callOptions)) as { data: unknown[]; meta: { next_cursor: string | null } };
      yield* page.data;
      cursor = page.meta.next_cursor;
    } while (cursor);
  }

  const client: Record<string, unknown> = {};
  for (const id of Object.keys(OPERATIONS) as OperationId[]) client[id] = (input?: unknown, callOptions?: RequestOptions) => call(id, input, callOptions);
  for (const id of PAGED) client[`${id}All`] = (input?: Values, callOptions?: RequestOptions) => all(id, input, callOptions);
  return client as unknown as MehirClient;
}

/** A success answer's body: JSON parsed, other media types as a Blob, none as null. */
async function successBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 202 || response.headers.get("content-length") === "0") {
    await response.body?.cancel();
    return null;
  }
  return isJson(response) ? await response.json() : await response.blob();
}

/** An error answer's body: JSON parsed when it is JSON, its text otherwise. */
async function errorBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!isJson(response)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const isJson = (response: Response) => /^application\/([a-z.+-]*\+)?json\b/i.test(response.headers.get("content-type") ?? "");
