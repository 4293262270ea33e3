import type * as z from "zod";
import type { Operation } from "../../openapi/operation.ts";
import type { ApiCall } from "./api-call.ts";

/**
 * One MCP tool: its name and wording for the assistant (English and Hebrew: users ask in
 * either), its arguments as a zod schema (the JSON schema `tools/list` shows is made from it),
 * the API request a call makes, and the short readable text of a successful answer.
 */
export interface McpTool<Args = any> {
  name: string;
  title: string;
  /** What the assistant reads; `{Plan}` becomes the plan the operation's audience needs (`Plan: Pro`). */
  description: string;
  /** The API operation the tool's request calls: its audience is the plan the description states (the API's gate decides). */
  operation: Pick<Operation, "method" | "path" | "audience">;
  input: z.ZodType<Args>;
  /** The API request a call with these (validated) arguments makes. */
  request(args: Args): ApiCall;
  /** A few lines a person can read: names as published, prices in ₪. */
  summary(data: any, meta: Record<string, unknown>, args: Args): string;
}

/** A tool, typed by its schema. */
export function defineTool<S extends z.ZodType>(tool: McpTool<z.infer<S>> & { input: S }): McpTool<z.infer<S>> {
  return tool;
}
