import { Elysia } from "elysia";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { version } from "../../../package.json";
import type { AppDeps } from "../../app.ts";
import { clientAddress, type PeerSource } from "../../http/access/client-address.ts";
import { MAX_JSON_BODY, readBodyText } from "../../http/json-body.ts";
import { ApiError } from "../../http/problem.ts";
import { publicOrigin } from "../../http/public-origin.ts";
import { requestState } from "../../http/request-state.ts";
import type { Caller, Handle } from "./api-call.ts";
import { listedTools } from "./tool-list.ts";
import { mcpServer } from "./server.ts";
import { TOOLS } from "./tools/index.ts";

export const MCP_PATH = "/mcp";

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
export function mcpModule(deps: AppDeps, handle: Handle) {
  const listed = listedTools(TOOLS);
  const { trustProxy } = deps.settings;
  const noStream = () => {
    throw new ApiError("method_not_allowed", "This MCP endpoint is stateless: send JSON-RPC messages with POST (no server-sent event stream, no sessions to end).", {
      headers: { allow: "POST" },
    });
  };
  return new Elysia({ name: "module.mcp" })
    .post(
      MCP_PATH,
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
        const caller: Caller = { key, origin: own, requestId: state.id, client: clientAddress(request, server as PeerSource | null, trustProxy) };
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
