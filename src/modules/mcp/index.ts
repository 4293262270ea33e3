import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import * as z from "zod";
import { operation } from "../../openapi/operation.ts";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { version } from "../../../package.json";
import type { Services } from "../../services.ts";
import { clientAddress, type PeerSource } from "../../http/request/client-address.ts";
import { MAX_JSON_BODY, readBodyText } from "../../http/request/json-body.ts";
import { ApiError } from "../../errors/api-error.ts";
import { publicOrigin } from "../../http/request/public-origin.ts";
import { requestState } from "../../http/request/request-state.ts";
import type { Caller, Handle } from "./api-call.ts";
import { listedTools } from "./tool-list.ts";
import { mcpServer } from "./server.ts";
import { TOOLS } from "./tools/index.ts";

export const MCP_PATH = "/mcp";

const JsonRpcRequest = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number().int()]).optional(),
  method: z.string().describe("`initialize`, `tools/list`, `tools/call`, …"),
  params: z.record(z.string(), z.unknown()).optional(),
});
const JSON_RPC_ANSWER = { type: "object", required: ["jsonrpc"], properties: { jsonrpc: { const: "2.0" }, id: { type: ["string", "integer", "null"] }, result: {}, error: { type: "object" } } };
const JSON_RPC_ERROR = {
  description: "A JSON-RPC error of the transport (the body is not JSON or not JSON-RPC, `Accept` lacks `application/json` and `text/event-stream`, or the media type is not JSON)",
  content: { "application/json": { schema: { type: "object", required: ["jsonrpc", "error"], properties: { jsonrpc: { const: "2.0" }, error: { type: "object", required: ["code", "message"], properties: { code: { type: "integer" }, message: { type: "string" } } }, id: { type: ["string", "integer", "null"] } } } } },
};

/** Documented minimally: the MCP specification (Streamable HTTP) is the contract of the messages. */
export const MCP = operation({
  method: "post",
  path: MCP_PATH,
  operationId: "postMcpMessage",
  audience: "mcp",
  alsoAnswers: ["GET", "DELETE"],
  summary: "MCP endpoint (JSON-RPC over Streamable HTTP)",
  tags: ["mcp"],
  description:
    "The price API as Model Context Protocol tools, for AI assistants: a JSON-RPC 2.0 message (or a batch) per POST, answered as JSON; stateless (no sessions; GET and DELETE answer 405). " +
    "The messages are the MCP specification's (`initialize`, `tools/list`, `tools/call`); send `Accept: application/json, text/event-stream`. " +
    "The key goes in `X-API-Key` or as `Authorization: Bearer`. The envelope has a rate-limit bucket of its own and is not counted; each tool call is the API request it makes, gated and counted like that request. " +
    "Requests from other sites' pages (an `Origin` not this service's) are refused.",
  body: {
    schema: z.union([JsonRpcRequest, z.array(JsonRpcRequest)]),
    example: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_products", arguments: { query: "חלב" } } },
  },
  success: { description: "The JSON-RPC answer (tool errors are results with `isError: true`)", content: { "application/json": { schema: { anyOf: [JSON_RPC_ANSWER, { type: "array", items: JSON_RPC_ANSWER }] } } } },
  otherResponses: { "202": { description: "Accepted: the message was a notification (no answer)" }, "400": JSON_RPC_ERROR, "406": JSON_RPC_ERROR, "415": JSON_RPC_ERROR },
  errors: [],
});

/** The key the access layer accepted: X-API-Key, or the bearer token. */
function presentedKey(request: Request): string {
  const header = request.headers.get("x-api-key")?.trim();
  if (header) return header;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (bearer) return bearer[1]!;
  throw new ApiError("missing_api_key", "Send your API key in the X-API-Key header or as Authorization: Bearer.");
}

/** A JSON-RPC error answer of the transport's own kind (the request was not a JSON-RPC message at all). */
function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "content-type": "application/json" } });
}

/**
 * `/mcp`: the price API as MCP tools (Streamable HTTP transport, the official SDK's Web-standard
 * server transport), in stateless mode: every POST carries its JSON-RPC message(s) and gets the
 * answer as JSON; there are no sessions and nothing the server sends unasked, so GET (a stream of
 * server messages) and DELETE (ending a session) answer 405, as the specification provides.
 *
 * Before any MCP processing, the access layer has checked the key (401/403 problem+json) and the
 * MCP rate-limit bucket; this module refuses other sites' pages (an `Origin` that is not the
 * service's own: DNS-rebinding protection) and bodies over 64 KiB (413 problem+json). Each tool
 * call is an API request made through the app itself (`handle`) with the caller's key.
 */
export function mcpModule(deps: Pick<Services, "settings">, handle: Handle) {
  const listed = listedTools(TOOLS);
  const { trustProxy } = deps.settings;
  const noStream = () => {
    throw new ApiError("method_not_allowed", "This MCP endpoint is stateless: send JSON-RPC messages with POST (no server-sent event stream, no sessions to end).", {
      headers: { allow: "POST" },
    });
  };
  return new Elysia({ name: "module.mcp" })
    .post(
      MCP.path,
      async ({ request, server }) => {
        const key = presentedKey(request);
        const origin = request.headers.get("origin");
        const own = publicOrigin(request, trustProxy);
        if (origin !== null && origin !== own) throw new ApiError("origin_not_allowed", `MCP requests from web pages of other sites (${origin}) are refused.`);
        const text = await readBodyText(request, MAX_JSON_BODY);
        let message: unknown;
        try {
          message = JSON.parse(text);
        } catch {
          return jsonRpcError(400, -32700, "Parse error: the body is not JSON.");
        }
        const state = requestState(request);
        // Tool calls go to this server's own URL (the app routes only http://HOST/… targets); links in
        // their answers follow the client's origin through the proxy's headers, as this request's do.
        const forwarded: Record<string, string> = {};
        if (trustProxy) {
          for (const name of ["x-forwarded-proto", "x-forwarded-host"]) {
            const value = request.headers.get(name);
            if (value !== null) forwarded[name] = value;
          }
        }
        const caller: Caller = { key, origin: publicOrigin(request, false), forwarded, requestId: state.id, client: clientAddress(request, server as PeerSource | null, trustProxy) };
        const mcp = mcpServer({ tools: TOOLS, listed, version, handle, caller });
        const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
        await mcp.connect(transport);
        try {
          const answer = await transport.handleRequest(request, { parsedBody: message });
          if (caller.quotaRemaining !== undefined) state.headers["x-quota-remaining"] = caller.quotaRemaining;
          return answer;
        } finally {
          await mcp.close();
        }
      },
      { parse: "none", detail: { hide: true } },
    )
    .get(MCP_PATH, noStream, { detail: { hide: true } })
    .delete(MCP_PATH, noStream, { detail: { hide: true } });
}

/** The API as MCP tools: each tool call is an API request made through the app itself, with the caller's key. */
export const mcpFeature: Feature = {
  name: "mcp",
  operations: [MCP],
  routes: ({ services, handle }) => mcpModule(services, handle),
};
