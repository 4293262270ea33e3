import type * as z from "zod";
import type { Plan } from "../../accounts/plans.ts";
import type { ApiCall } from "./api-call.ts";

/**
 * One MCP tool: its name and wording for the assistant (English and Hebrew: users ask in
 * either), its arguments as a zod schema (the JSON schema `tools/list` shows is made from it),
 * the API request a call makes, and the short readable text of a successful answer.
 */
export interface McpTool<Args = any> {
  name: string;
  title: string;
  description: string;
  /** The lowest plan whose keys the tool's API request serves (the API's gate decides; this is for the docs). */
  plan: Plan;
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
