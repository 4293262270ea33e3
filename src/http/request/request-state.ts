import type { DataSnapshot } from "../../data/data-state.ts";
import { requestSlot } from "./request-slot.ts";

/**
 * Per-request state shared by the app's hooks (request id, timing, the caller's access
 * context). Carried by the Request itself (request-slot.ts) so no module depends on Elysia's context shape.
 */

export interface AccessContext {
  accountId: number;
  keyId: number;
  keyKind: "live" | "test" | "publishable";
  keyPrefix: string;
  plan: "free" | "basic" | "pro";
  /** Monthly quota figures; null for publishable keys' API quota. */
  quotaLimit: number | null;
  quotaRemaining: number | null;
  /** True once a quota unit was reserved for this request (refunded on 304/5xx). */
  quotaReserved: boolean;
}

/**
 * An API request the service makes to itself on a client's behalf (an MCP tool call): its log
 * line names the tool and the client's request, and shows the client's address.
 */
export interface InternalCall {
  via: "mcp";
  tool: string;
  parentRequestId: string;
  client: string;
}

export interface RequestState {
  /** The server's own id, or the `X-Request-Id` a trusted reverse proxy set (see requestState). */
  id: string;
  /** The `X-Request-Id` a client sent that is not taken as the id (no trusted proxy): logged only. */
  clientRequestId?: string;
  startedAt: number;
  access: AccessContext | null;
  /** Response headers every answer (success or error) must carry, e.g. rate-limit figures. */
  headers: Record<string, string>;
  /**
   * The data an answer reflects, when a handler says so: just after an import a busy server may
   * answer from the previous data version (AnswerCache); its ETag and Last-Modified follow it.
   */
  snapshot?: DataSnapshot;
  /** The route answers account data (alerts): no ETag or 304, whatever the data version. */
  accountData?: boolean;
  /** Set when the request is an internal call made for a client (see InternalCall). */
  internal?: InternalCall;
}

const states = requestSlot<RequestState>("requestState");

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Whether an `X-Request-Id` a request came with may be used (logged, or taken as the id behind a trusted proxy). */
export const isSaneRequestId = (given: string | null): given is string => given !== null && REQUEST_ID.test(given);

// Request ids: a random prefix per process and a counter (unique, 32 hex digits, and cheaper
// than a random UUID per request; they only correlate log lines and error reports).
const ID_PREFIX = "req_" + crypto.randomUUID().replaceAll("-", "").slice(0, 16);
let idCounter = 0;
// The counter's 16 hex digits as its first 10 (made again every 2^24 ids) and two 3-digit pieces
// from a table: a third of the time of formatting and padding the whole counter every request.
const HEX3 = Array.from({ length: 4096 }, (_, i) => i.toString(16).padStart(3, "0"));
let idHead = "";

/** The server's own id for a new request: `req_`, the process's 16 random hex digits, the counter's 16. */
export function nextRequestId(): string {
  const n = ++idCounter;
  const low = n % 0x1000000;
  if (low === 0 || idHead === "") idHead = ID_PREFIX + Math.floor(n / 0x1000000).toString(16).padStart(10, "0");
  return idHead + HEX3[low >>> 12]! + HEX3[low & 0xfff]!;
}

/**
 * The state of a request, made on its first use (the app's first hook passes `trustProxy`).
 * A shared meter counts a request a reverse proxy retries once by its id (src/cluster/redis/meter.ts),
 * so the id is the server's own unless `trustProxy` (MEHIR_TRUST_PROXY: every request comes through
 * a proxy that sets `X-Request-Id`, as deploy/ examples do) and a sane one came. A client's own id
 * never becomes the request's: it would let a client replay another request's verdict (and pass
 * for another request in the logs); it is kept as `clientRequestId`, for the log line.
 */
export function requestState(request: Request, trustProxy = false): RequestState {
  let state = states.get(request);
  if (!state) {
    const given = request.headers.get("x-request-id");
    const sane = isSaneRequestId(given);
    state = {
      id: sane && trustProxy ? given : nextRequestId(),
      startedAt: performance.now(),
      access: null,
      headers: {},
      clientRequestId: sane && !trustProxy ? given : undefined,
    };
    states.set(request, state);
  }
  return state;
}
