import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import type { AppDeps } from "../../app.ts";
// Embedded in the compiled binary: the docs UI must render with no internet.
import scalarBundle from "../../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import { errorsPage } from "./errors-page.ts";
import { API_DESCRIPTION } from "./description.ts";
import { alertWebhooks } from "../alerts/webhooks-doc.ts";

const SCALAR_PATH = "/docs/assets/scalar.js";

/** OpenAPI document at /docs/json, the Scalar UI at /docs (assets served by us), the error list at /docs/errors. */
export function docsModule(_deps: AppDeps) {
  const scalar = Bun.file(scalarBundle);
  return new Elysia({ name: "module.docs" })
    .use(
      openapi({
        path: "/docs",
        specPath: "/docs/json",
        provider: "scalar",
        scalar: { cdn: SCALAR_PATH, withDefaultFonts: false, hideClientButton: true } as never,
        exclude: { paths: [SCALAR_PATH, "/docs/errors"] },
        documentation: {
          info: { title: "mehir — Israeli supermarket prices API", version: "1.0.0", description: API_DESCRIPTION },
          servers: [{ url: "/", description: "This server" }],
          tags: [
            { name: "prices", description: "Prices of one product across chains and stores" },
            { name: "search", description: "Hebrew product search" },
            { name: "chains", description: "Chains and their catalogs" },
            { name: "promotions", description: "Active promotions" },
            { name: "basket", description: "Basket comparison" },
            { name: "widget", description: "Embeddable widget" },
            { name: "alerts", description: "Price alerts delivered by signed webhook" },
            { name: "operations", description: "Health and metrics" },
          ],
          components: {
            securitySchemes: {
              secretKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "sk_live_… or sk_test_…" },
              publishableKey: { type: "apiKey", in: "query", name: "key", description: "pk_live_… (widget endpoint only)" },
            },
          },
          security: [{ secretKey: [] }],
          webhooks: alertWebhooks() as never,
        },
      }),
    )
    .get(SCALAR_PATH, ({ set }) => {
      set.headers["content-type"] = "text/javascript; charset=utf-8";
      set.headers["cache-control"] = "public, max-age=86400";
      return scalar;
    }, { detail: { hide: true } })
    .get("/docs/errors", ({ set }) => {
      set.headers["content-type"] = "text/html; charset=utf-8";
      return errorsPage();
    }, { detail: { hide: true } });
}
