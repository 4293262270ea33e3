import * as z from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors/api-error.ts";
import { describedWithPlan, type Audience, type JsonSchema, type Operation } from "./operation.ts";
import examples from "./response-examples.json" with { type: "json" };
import { TAGS } from "./tags.ts";

/**
 * Success answers' examples by operationId: real answers of the embedded demo data, written by
 * `npm run openapi:examples` (scripts/openapi-examples.ts); the contract test validates them.
 */
const RESPONSE_EXAMPLES: Record<string, unknown> = examples;

/** What the document says beside its operations. */
export interface DocumentInfo {
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  webhooks: Record<string, unknown>;
}

type Header = { description: string; required?: boolean; schema: JsonSchema };

const WHOLE = { type: "integer", minimum: 0 };

const REQUEST_ID: Header = { description: "The request's id, given by the server (or its trusted reverse proxy): a client's own `X-Request-Id` is logged with it, never taken as it. Quote it when reporting a problem.", required: true, schema: { type: "string" } };
const RATE_HEADERS: Record<string, Header> = {
  "X-RateLimit-Limit": { description: "Requests per minute of the caller's rate limit", schema: WHOLE },
  "X-RateLimit-Remaining": { description: "Whole requests the caller may make now (at most the burst, a quarter of the minute's figure)", schema: WHOLE },
  "X-RateLimit-Reset": { description: "Seconds until the caller's bucket is full again", schema: WHOLE },
};
const QUOTA_HEADERS: Record<string, Header> = {
  "X-Quota-Limit": { description: "The account's monthly quota (calls)", schema: WHOLE },
  "X-Quota-Remaining": { description: "Calls left this month (= `meta.quota_remaining`)", schema: WHOLE },
};
const RETRY_AFTER: Header = { description: "Whole seconds to wait before trying again", required: true, schema: { type: "integer", minimum: 1 } };
const ETAG: Header = { description: "Weak validator of the answer (data version and canonical request); send it back in `If-None-Match`", required: true, schema: { type: "string" } };
const LAST_MODIFIED: Header = { description: "When the data the answer was made from was updated (HTTP date)", schema: { type: "string" } };

/** The problem+json body (RFC 9457) every error has. */
const PROBLEM: JsonSchema = {
  type: "object",
  description: "RFC 9457 problem details. Branch on `code`; `type` links to its entry in /docs/errors.",
  required: ["type", "title", "status", "detail", "code", "request_id"],
  properties: {
    type: { type: "string", format: "uri-reference", description: "`/docs/errors#<code>`", example: "/docs/errors#product_not_found" },
    title: { type: "string" },
    status: { type: "integer", minimum: 400, maximum: 599 },
    detail: { type: "string", description: "What went wrong, for people; never a stack trace" },
    code: { type: "string", enum: Object.keys(ERROR_CODES) },
    param: { type: "string", description: "The offending parameter or body member, e.g. `items[3].quantity`" },
    request_id: { type: "string" },
    candidates: {
      type: "array",
      description: "`ambiguous_product` only: the items the bare code can mean; pass one's `barcode` with its `chain_id`",
      items: { type: "object", required: ["barcode", "chain_id", "name"], properties: { barcode: { type: "string" }, chain_id: { type: ["string", "null"] }, name: { type: "string" } }, additionalProperties: false },
    },
  },
  additionalProperties: false,
};

/** Errors every operation of an audience can answer, besides its own. */
function audienceErrors(op: Operation): ErrorCode[] {
  const { audience } = op;
  const errors: ErrorCode[] = ["invalid_request", "uri_too_long", "internal_error"];
  if (audience === "public") return errors;
  // service_unavailable: a cluster's keys and counters are in Redis; unreachable, keyed calls fail closed.
  errors.push("missing_api_key", "invalid_api_key", "secret_key_not_allowed", "rate_limited", "service_unavailable");
  if (audience === "publishable") return [...errors, "origin_not_allowed", "quota_exceeded", "data_not_ready"];
  errors.push("publishable_key_not_allowed");
  if (audience === "mcp") return [...errors, "origin_not_allowed", "payload_too_large"];
  errors.push("quota_exceeded", "data_not_ready");
  if (audience !== "free") errors.push("plan_upgrade_required");
  // Account data and the exports live on the primary: a replica behind a misrouting proxy says so.
  if (op.liveOnly) errors.push("live_key_required", "primary_only");
  return errors;
}

/** `/api/v1/prices/:barcode/history` → `/api/v1/prices/{barcode}/history`. */
export function openapiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, "{$1}");
}

/**
 * zod → JSON Schema (2020-12, the dialect of OpenAPI 3.1), without zod's safe-integer bounds on
 * integers (they made generated examples show -9007199254740991).
 */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete out.$schema;
  return tidy(out) as JsonSchema;
}

function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
    out[key] = tidy(v);
  }
  return out;
}

/** Path or query parameters of a zod object. */
function parameters(schema: z.ZodObject, where: "query" | "path", examples: Record<string, string>) {
  const json = jsonSchema(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    const parameter: Record<string, unknown> = { name, in: where, required: where === "path" || (json.required ?? []).includes(name) };
    if (description) parameter.description = description;
    parameter.schema = rest;
    if (examples[name] !== undefined) parameter.example = examples[name];
    return parameter;
  });
}

/** The `{ data, meta }` answer with the members the app's hooks always add to `meta`. */
function answerSchema(schema: z.ZodType, secret: boolean): JsonSchema {
  const json = jsonSchema(schema, "output") as { properties?: Record<string, JsonSchema> };
  const meta = json.properties?.meta as { properties?: Record<string, JsonSchema>; required?: string[] } | undefined;
  if (meta?.properties) {
    const add = (name: string, property: JsonSchema) => {
      meta.properties![name] = { ...property, ...(meta.properties![name]?.description ? { description: meta.properties![name]!.description } : {}) };
      meta.required = [...new Set([...(meta.required ?? []), name])];
    };
    add("request_id", { type: "string", description: "The request's id (also the `X-Request-Id` header)" });
    add("livemode", { type: "boolean", description: "true: live data; false: test mode (an sk_test_ key), whose data is the sandbox (the embedded demo dataset)" });
    if (secret) add("quota_remaining", { type: "integer", minimum: 0, description: "Calls left this month for the account (live figure, also for test keys)" });
  }
  return json as JsonSchema;
}

function problemResponse(codes: ErrorCode[], headers: Record<string, Header>) {
  const list = codes.map((c) => `\`${c}\``).join(", ");
  return {
    description: `${ERROR_CODES[codes[0]!].title}${codes.length > 1 ? " and others" : ""}: ${list} (see /docs/errors)`,
    headers,
    content: {
      "application/problem+json": {
        schema: { allOf: [{ $ref: "#/components/schemas/Problem" }, { type: "object", properties: { code: { type: "string", enum: codes } } }] },
      },
    },
  };
}

/** The success answer's media types, the JSON one with its example. */
function successContent(op: Operation, secret: boolean): Record<string, Record<string, unknown>> | undefined {
  const content: Record<string, Record<string, unknown>> | undefined = op.success.content
    ? { ...op.success.content }
    : op.success.schema
      ? { "application/json": { schema: answerSchema(op.success.schema, secret) } }
      : undefined;
  const example = RESPONSE_EXAMPLES[op.operationId];
  if (content?.["application/json"] && example !== undefined) content["application/json"] = { ...content["application/json"], example };
  return content;
}

function securityOf(audience: Audience) {
  if (audience === "public") return [];
  if (audience === "publishable") return [{ publishableKey: [] }, { publishableKeyHeader: [] }];
  if (audience === "mcp") return [{ secretKey: [] }, { bearerKey: [] }];
  return [{ secretKey: [] }];
}

function operationObject(op: Operation) {
  const { audience } = op;
  const secret = audience !== "public" && audience !== "publishable";
  const limited = audience !== "public";
  const examples = op.examples ?? {};
  const codes = new Set<ErrorCode>([...op.errors, ...audienceErrors(op)]);
  if (op.query || op.params || op.body) codes.add("invalid_parameter");
  if (op.query?.shape.cursor) codes.add("invalid_cursor");
  if (op.body && audience !== "mcp") codes.add("payload_too_large").add("unsupported_media_type");
  if (audience === "mcp") codes.delete("invalid_parameter"); // a body that is not JSON-RPC is a JSON-RPC error

  const successHeaders: Record<string, Header> = { "X-Request-Id": REQUEST_ID };
  if (limited) for (const [name, h] of Object.entries(RATE_HEADERS)) successHeaders[name] = { ...h, required: true };
  if (secret && audience !== "mcp") for (const [name, h] of Object.entries(QUOTA_HEADERS)) successHeaders[name] = { ...h, required: true };
  if (op.conditional) Object.assign(successHeaders, { ETag: ETAG, "Last-Modified": LAST_MODIFIED });
  for (const [name, h] of Object.entries(op.success.headers ?? {})) successHeaders[name] = { schema: { type: "string" }, ...h };

  const status = String(op.success.status ?? 200);
  const responses: Record<string, unknown> = {
    [status]: {
      description: op.success.description ?? "The answer",
      headers: successHeaders,
      content: successContent(op, secret),
    },
  };
  if (op.conditional) {
    responses["304"] = {
      description: "Not modified: `If-None-Match` names the answer's current ETag, or is `*` and the answer exists. Not counted against the quota.",
      headers: { "X-Request-Id": REQUEST_ID, ETag: ETAG },
    };
  }
  for (const [s, response] of Object.entries(op.otherResponses ?? {})) {
    responses[s] = { ...response, headers: { "X-Request-Id": REQUEST_ID, ...response.headers } };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const s = ERROR_CODES[code].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), code]);
  }
  for (const s of [...byStatus.keys()].sort()) {
    const headers: Record<string, Header> = { "X-Request-Id": REQUEST_ID };
    if (limited) Object.assign(headers, RATE_HEADERS);
    if (secret && audience !== "mcp") Object.assign(headers, QUOTA_HEADERS);
    if (s === 429 || s === 503) headers["Retry-After"] = RETRY_AFTER;
    if (s === 405) headers.Allow = { description: "The methods the path answers", required: true, schema: { type: "string" } };
    const problem = problemResponse(byStatus.get(s)!, headers);
    const other = responses[String(s)] as { description: string; headers?: Record<string, unknown>; content?: Record<string, unknown> } | undefined;
    // A status the operation also answers otherwise (MCP's JSON-RPC 400): both bodies, each by its media type.
    responses[String(s)] = other
      ? { ...other, description: `${other.description}; or a problem (application/problem+json)`, headers: { ...problem.headers, ...other.headers }, content: { ...other.content, ...problem.content } }
      : problem;
  }

  const params = [...(op.params ? parameters(op.params, "path", examples) : []), ...(op.query ? parameters(op.query, "query", examples) : [])];
  if (op.conditional) {
    params.push({ name: "If-None-Match", in: "header", required: false, description: "An ETag of an earlier answer, or `*`: 304 when it still matches (or, for `*`, when the answer exists)", schema: { type: "string" } });
  }
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: describedWithPlan(op),
    tags: op.tags,
    security: securityOf(audience),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(op.body
      ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.body.schema, "input"), example: op.body.example } } } }
      : {}),
    responses,
  };
}

/**
 * Operations in the document's order: by their first tag, in the order of TAGS, then by path
 * (`/api/v1/prices`, `/api/v1/prices/batch`, `/api/v1/prices/{barcode}/history`), the features'
 * order for one path. An operation whose tag is not listed stops the app at start.
 */
export function inDocumentOrder(operations: readonly Operation[]): Operation[] {
  const ranked = operations.map((op) => {
    const rank = TAGS.findIndex((t) => t.name === op.tags[0]);
    if (rank < 0) throw new Error(`operation ${op.operationId} has tag ${JSON.stringify(op.tags[0])}, which src/openapi/tags.ts does not list`);
    return { op, rank, path: openapiPath(op.path) };
  });
  ranked.sort((a, b) => a.rank - b.rank || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return ranked.map((r) => r.op);
}

/** The OpenAPI 3.1 document of the operations (served at /docs/json). */
export function openapiDocument(operations: readonly Operation[], about: DocumentInfo) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const path = openapiPath(op.path);
    paths[path] ??= {};
    paths[path]![op.method] = operationObject(op);
  }
  return {
    openapi: "3.1.0",
    info: { ...about.info, license: { name: "MIT", identifier: "MIT" } },
    servers: [{ url: "/", description: "This server" }],
    tags: about.tags,
    security: [{ secretKey: [] }],
    paths,
    webhooks: about.webhooks,
    components: {
      schemas: { Problem: PROBLEM },
      securitySchemes: {
        secretKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "`sk_live_…` or `sk_test_…` (test mode: the sandbox data)" },
        publishableKey: { type: "apiKey", in: "query", name: "key", description: "`pk_live_…` (the widget data endpoint only; no CORS preflight)" },
        publishableKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key", description: "`pk_live_…` in the header (widget data endpoint only)" },
        bearerKey: { type: "http", scheme: "bearer", description: "A secret key as a bearer token (/mcp only)" },
      },
    },
  };
}
