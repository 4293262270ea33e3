import { Elysia } from "elysia";
import type { AppDeps } from "../../app.ts";
import { readiness } from "./service.ts";

/** Liveness and readiness probes (public, no key, not counted). */
export function healthModule(deps: AppDeps) {
  return new Elysia({ name: "module.health" })
    .get("/healthz", () => ({ status: "ok" }), {
      detail: { summary: "Liveness", tags: ["operations"], description: "Answers 200 while the process runs." },
    })
    .get(
      "/readyz",
      ({ set }) => {
        const state = readiness(deps);
        if (!state.ready) {
          set.status = 503;
          set.headers["retry-after"] = "5";
        }
        return state;
      },
      {
        detail: {
          summary: "Readiness",
          tags: ["operations"],
          description: "200 when price data is imported and the search index is built; 503 with Retry-After until then.",
        },
      },
    );
}
