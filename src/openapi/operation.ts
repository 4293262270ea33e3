import type * as z from "zod";
import type { ErrorCode } from "../errors/api-error.ts";
import type { Plan } from "../accounts/plans.ts";
import { PLAN_NAMES } from "../accounts/plan-limits.ts";

/**
 * Who may call an operation: a secret key of this plan or higher (free ⊂ basic ⊂ pro), a
 * publishable key (the widget), a secret key of any plan on the MCP endpoint (its tool calls are
 * gated and counted as the API calls they make), or anyone (`public`: probes, images, docs).
 */
export type Audience = Plan | "publishable" | "public" | "mcp";

/** A JSON Schema object as the document holds it. */
export type JsonSchema = Record<string, unknown>;

/**
 * One operation of the API as the OpenAPI document (/docs/json) describes it, declared beside
 * its route. The document builder (document.ts) adds what every operation of its audience shares
 * (see plans.ts): the key errors (401/403), 414, 429, 500 and 503, and the rate-limit, quota and
 * request-id headers, so a route declares only its own parameters, answer and errors.
 */
export interface Operation {
  method: "get" | "post" | "delete";
  /** The route as registered in Elysia (`/api/v1/prices/:barcode/history`). */
  path: string;
  /** camelCase, unique: the method name generated clients get. */
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** The query string, read with parseQuery (query.ts): every value is text. */
  query?: z.ZodObject;
  /** Path parameters. */
  params?: z.ZodObject;
  /** Examples of parameters (query or path), values of the embedded demo data. */
  examples?: Record<string, string>;
  /** A JSON body. */
  body?: { schema: z.ZodType; example: unknown };
  /** The success answer: a zod schema of `{ data, meta }`, or raw content (files, images). */
  success: {
    status?: 200 | 201;
    description?: string;
    schema?: z.ZodType;
    content?: Record<string, { schema: JsonSchema }>;
    /** Response headers beyond the common ones. */
    headers?: Record<string, { description: string; required?: boolean; schema?: JsonSchema }>;
  };
  /** Answers that are not problem+json (a JSON-RPC error, /readyz's 503): OpenAPI response objects by status. */
  otherResponses?: Record<string, { description: string; headers?: Record<string, { description: string; required?: boolean; schema: JsonSchema }>; content?: Record<string, { schema: JsonSchema }> }>;
  /** The error codes this operation's handler answers (the audience's are added by the builder). */
  errors: readonly ErrorCode[];
  /** GET answers of price data: ETag and Last-Modified, 304 to a matching If-None-Match. */
  conditional?: boolean;
  /**
   * Who may call it (the access layer enforces it; the document's security, errors and "Plan:"
   * text follow from it). A plan's description gets `Plan: <name>. ` first, or in place of
   * `{Plan}` when the description says where.
   */
  audience: Audience;
  /**
   * Live keys only (403 live_key_required for a test key): test keys read the sandbox, and this
   * operation would hand them live data (alerts are evaluated on live data; exports are its files).
   */
  liveOnly?: true;
  /** Its answers are account data (alerts): no ETag, no 304, `Cache-Control: no-store`, whatever the data version. */
  accountData?: true;
  /**
   * Counted by the work its body asks for, one call per this many items (rounded up): the
   * handler takes the calls at once (chargeCalls) once the body is valid. Default: one call.
   */
  itemsPerCall?: number;
  /** Other methods the route answers with the same audience (undocumented: MCP's GET and DELETE answer 405). */
  alsoAnswers?: readonly ("GET" | "DELETE")[];
}

/** Declares an operation (the object is the declaration; its path keeps its literal type for Elysia's params). */
export function operation<const P extends string>(op: Operation & { path: P }): Operation & { path: P } {
  return op;
}

/** The description with the plan the operation's audience needs (`Plan: Pro. …`, or where it says `{Plan}`). */
export function describedWithPlan(op: Pick<Operation, "audience" | "description">): string {
  if (op.audience !== "free" && op.audience !== "basic" && op.audience !== "pro") return op.description;
  const plan = `Plan: ${PLAN_NAMES[op.audience]}`;
  return op.description.includes("{Plan}") ? op.description.replace("{Plan}", plan) : `${plan}. ${op.description}`;
}
