import { Elysia } from "elysia";
import * as z from "zod";
import type { Feature } from "../feature.ts";
import type { Services } from "../../services.ts";
import { operation } from "../../openapi/operation.ts";
import { jsonSchema } from "../../openapi/document.ts";
import { readiness } from "../health/service.ts";
import { homePage, type HomeIndex } from "./page.ts";
import { publicOrigin } from "../../http/request/public-origin.ts";

const Index = z.object({
  name: z.literal("mehir"),
  description: z.string(),
  data: z.object({
    ready: z.boolean(),
    data: z.boolean(),
    search: z.boolean(),
    data_version: z.number().int().min(0),
    data_updated_at: z.string().nullable(),
    source: z.string().describe("`demo`, `live`, or `none` before the first import"),
  }),
  links: z.object({
    docs: z.string(),
    openapi: z.string(),
    errors: z.string(),
    portal: z.string(),
    widget_demo: z.string(),
    readiness: z.string(),
  }),
});

export const HOME = operation({
  method: "get",
  path: "/",
  operationId: "getIndex",
  audience: "public",
  summary: "What this server is",
  tags: ["operations"],
  description:
    "Public, no key, not counted. For a browser (`Accept: text/html`) a short page: what this server is, how fresh its data is, and links to the docs, the developer portal and the widget demo. " +
    "For a program, the same as JSON: `name`, `description`, `data` (as `/readyz`) and `links` (absolute URLs).",
  success: { content: { "application/json": { schema: jsonSchema(Index, "output") }, "text/html": { schema: { type: "string" } } } },
  errors: [],
});

const DESCRIPTION =
  "A self-hosted API for the prices of products sold by Israel's supermarket chains, from the files they must publish by law: " +
  "prices per chain and store, search in Hebrew and English, baskets, history, promotions, alerts and an embeddable widget.";

/** The index of the server at `origin`. */
export function homeIndex(deps: Pick<Services, "data" | "search">, origin: string): HomeIndex {
  return {
    name: "mehir",
    description: DESCRIPTION,
    data: readiness(deps),
    links: {
      docs: `${origin}/docs`,
      openapi: `${origin}/docs/json`,
      errors: `${origin}/docs/errors`,
      portal: `${origin}/portal/`,
      widget_demo: `${origin}/widget/v1/demo.html`,
      readiness: `${origin}/readyz`,
    },
  };
}

/** `GET /`: a page for people, JSON for programs. */
export function homeModule(deps: Pick<Services, "data" | "search" | "settings">) {
  return new Elysia({ name: "module.home" }).get(HOME.path, ({ request, set }) => {
    const index = homeIndex(deps, publicOrigin(request, deps.settings.trustProxy));
    set.headers["cache-control"] = "no-store";
    set.headers.vary = "Accept";
    if ((request.headers.get("accept") ?? "").includes("text/html")) {
      set.headers["content-type"] = "text/html; charset=utf-8";
      return homePage(index);
    }
    return index;
  });
}

/** The server's front door. */
export const homeFeature: Feature = {
  name: "home",
  operations: [HOME],
  routes: ({ services }) => homeModule(services),
};
