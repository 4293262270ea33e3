import type { AnyElysia } from "elysia";
import type { Services } from "../services.ts";
import type { Operation } from "../openapi/operation.ts";
import { inDocumentOrder } from "../openapi/document.ts";
import type { RouteDeclaration } from "../http/routes.ts";
import type { FastRoute } from "../http/fast-lane.ts";

/** What the app lends a feature's routes. */
export interface FeatureContext {
  services: Services;
  /** Every operation the app's features declare, in the document's order (the docs feature describes them). */
  operations: readonly Operation[];
  /** The app itself: a request made through it runs every step a client's does (MCP's tool calls). */
  handle(request: Request): Promise<Response>;
}

/**
 * One feature of the service, registered once (src/modules/index.ts lists them): the app mounts its
 * routes, the OpenAPI document describes its operations, the access layer enforces the audience
 * each declares, and the fast lane answers its `fast` routes. A route under /api/ or /mcp that no
 * feature declares stops the app at start (app.ts).
 */
export interface Feature {
  /** Its name, as errors at start name it. */
  name: string;
  /** Its documented operations: who may call each (audience) and what the document says of it. */
  operations?: readonly Operation[];
  /** Routes under /api/ the document leaves out, each with who may call it (the widget data's CORS preflight). */
  undocumented?: readonly RouteDeclaration[];
  /** Its Elysia routes. */
  routes(context: FeatureContext): AnyElysia;
  /** Its routes the fast lane answers before Elysia's lifecycle (src/http/fast-lane.ts), each also among its routes. */
  fast?(services: Services): readonly FastRoute[];
}

/** The features' operations, in the document's order (by tag, then path: openapi/document.ts). */
export function operationsOf(features: readonly Feature[]): readonly Operation[] {
  return inDocumentOrder(features.flatMap((f) => f.operations ?? []));
}

/** What every route of the features declares of its access: their operations and undocumented routes. */
export function declarationsOf(features: readonly Feature[]): readonly RouteDeclaration[] {
  return [...operationsOf(features), ...features.flatMap((f) => f.undocumented ?? [])];
}
