import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { mustBe, refusedInput } from "../../http/request/invalid-input.ts";
import { log } from "../../lib/log.ts";
import { callApi, type Caller, type Handle } from "./api-call.ts";
import type { McpTool } from "./tool.ts";
import { toolResult } from "./tool-result.ts";

const INSTRUCTIONS =
  "Prices of products in Israel's supermarket chains (מחירים ברשתות השיווק בישראל), from the files the chains publish by law, refreshed daily. " +
  "Find a product with search_products (Hebrew or English), then pass its barcode (and chain_id when the result has one) to get_prices, price_history or compare_basket. " +
  "Prices are in shekels (₪, ILS) including VAT; product and store names are in Hebrew as the chains publish them. " +
  "Each tool call counts as one call of the key's monthly quota (listing tools does not); a tool above the key's plan answers plan_upgrade_required.";

/**
 * An MCP server (the SDK's) for one /mcp request, its tool calls made with the caller's key.
 * Arguments that fail a tool's schema, and unknown tools, are JSON-RPC errors (-32602 Invalid
 * params, `data.param` naming the argument); what the API answers (including its errors, with their
 * codes) is the tool's result.
 */
export function mcpServer(options: { tools: readonly McpTool[]; listed: Tool[]; version: string; handle: Handle; caller: Caller }): Server {
  const { tools, listed, handle, caller } = options;
  const server = new Server({ name: "mehir", title: "mehir — Israeli supermarket prices", version: options.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}"; the tools are ${tools.map((t) => t.name).join(", ")}.`, { param: "name" });
    const parsed = tool.input.safeParse(args ?? {}, { error: mustBe });
    if (!parsed.success) {
      const { param, detail } = refusedInput(parsed.error.issues, "arguments");
      throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${name}: ${detail}`, { param: param === "arguments" ? param : `arguments.${param}` });
    }
    const answer = await callApi(handle, name, tool.request(parsed.data), caller);
    try {
      return toolResult(tool, answer, parsed.data);
    } catch (error) {
      log.error("mcp tool result failed", { request_id: caller.requestId, tool: name, error: String((error as Error)?.stack ?? error) });
      throw new McpError(ErrorCode.InternalError, `Something went wrong; quote request id ${caller.requestId} when reporting it.`);
    }
  });
  return server;
}
