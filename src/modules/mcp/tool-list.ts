import * as z from "zod";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpTool } from "./tool.ts";
import { describedWithPlan } from "../../openapi/operation.ts";

/** What tools/list shows, made once per app from the tools' zod schemas. */
export function listedTools(tools: readonly McpTool[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: describedWithPlan({ audience: tool.operation.audience, description: tool.description }),
    inputSchema: z.toJSONSchema(tool.input, { io: "input" }) as Tool["inputSchema"],
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }));
}
