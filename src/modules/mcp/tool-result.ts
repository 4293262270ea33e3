import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApiAnswer } from "./api-call.ts";
import type { McpTool } from "./tool.ts";

/**
 * A tool's result from the API's answer. Success: `structuredContent` is the API's answer itself
 * (`{ data, meta }`, the same JSON the REST call returns, documented in /docs), and `content` a short
 * text a person can read, then that JSON as text for clients that show only text (as the MCP
 * specification advises). An API error is a tool error (`isError`) whose text starts with the
 * API's code and whose `structuredContent.error` is the API's problem+json.
 */
export function toolResult(tool: McpTool, answer: ApiAnswer, args: unknown): CallToolResult {
  if (!answer.ok) {
    const { problem } = answer;
    const param = problem.param ? ` (parameter ${problem.param})` : "";
    // An ambiguous code lists the items it may mean: the assistant picks one and calls again with its chain_id.
    const candidates = (problem.candidates ?? []).map((c) => `\n- ${c.name}: barcode ${c.barcode}, chain_id ${c.chain_id}`).join("");
    return {
      isError: true,
      content: [{ type: "text", text: `${problem.code}: ${problem.detail}${param}${candidates}` }],
      structuredContent: { error: problem },
    };
  }
  const { data, meta } = answer.body;
  return {
    content: [
      { type: "text", text: tool.summary(data, meta, args) },
      { type: "text", text: JSON.stringify(answer.body) },
    ],
    structuredContent: answer.body,
  };
}
