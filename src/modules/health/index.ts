import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import * as z from "zod";
import type { Services } from "../../services.ts";
import { operation } from "../../openapi/operation.ts";
import { jsonSchema } from "../../openapi/document.ts";
import { DateTime } from "../../openapi/formats.ts";
import { readiness } from "./service.ts";

const Readiness = z.object({
  ready: z.boolean().describe("Data imported and the search index built"),
  data: z.boolean(),
  search: z.boolean(),
  data_version: z.number().int().min(0),
  data_updated_at: DateTime.nullable(),
  source: z.string().describe("`demo`, `live`, or `none` before the first import"),
});

export const LIVENESS = operation({
  method: "get",
  path: "/healthz",
  operationId: "getLiveness",
  audience: "public",
  summary: "Liveness",
  tags: ["operations"],
  description: "Public, no key, not counted. Answers 200 `{\"status\":\"ok\"}` while the process runs.",
  success: { content: { "application/json": { schema: jsonSchema(z.object({ status: z.literal("ok") }), "output") } } },
  errors: [],
});

export const READINESS = operation({
  method: "get",
  path: "/readyz",
  operationId: "getReadiness",
  audience: "public",
  summary: "Readiness",
  tags: ["operations"],
  description: "Public, no key, not counted. 200 when price data is imported and the search index is built; 503 with the same body and `Retry-After` until then.",
  success: { content: { "application/json": { schema: jsonSchema(Readiness, "output") } } },
  otherResponses: {
    "503": {
      description: "Not ready yet (the same body, `ready: false`)",
      headers: { "Retry-After": { description: "Seconds to wait", required: true, schema: { type: "integer", minimum: 1 } } },
      content: { "application/json": { schema: jsonSchema(Readiness, "output") } },
    },
  },
  errors: [],
});

/** Liveness and readiness probes (public, no key, not counted). */
export function healthModule(deps: Pick<Services, "data" | "search">) {
  return new Elysia({ name: "module.health" })
    .get(LIVENESS.path, () => ({ status: "ok" }))
    .get(READINESS.path, ({ set }) => {
      const state = readiness(deps);
      if (!state.ready) {
        set.status = 503;
        set.headers["retry-after"] = "5";
      }
      return state;
    });
}

/** Liveness and readiness probes. */
export const healthFeature: Feature = {
  name: "health",
  operations: [LIVENESS, READINESS],
  routes: ({ services }) => healthModule(services),
};
