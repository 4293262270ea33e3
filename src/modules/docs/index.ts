import { Elysia } from "elysia";
// Embedded in the compiled binary: the docs UI must render with no internet.
import scalarBundle from "../../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import { errorsPage } from "./errors-page.ts";
import { API_DESCRIPTION } from "./description.ts";
import { alertWebhooks } from "../alerts/webhooks-doc.ts";
import { openapiDocument } from "../../openapi/document.ts";
import { TAGS } from "../../openapi/tags.ts";
import type { Operation } from "../../openapi/operation.ts";
import type { Feature } from "../feature.ts";
import { docsPage } from "./docs-page.ts";

const SCALAR_PATH = "/docs/assets/scalar.js";


/**
 * The OpenAPI document at /docs/json (built by src/openapi/document.ts from the operations
 * the features declare, given in the document's order), the Scalar UI at /docs (its script
 * served by us) and the error list at /docs/errors.
 */
export function docsModule(operations: readonly Operation[]) {
  const scalar = Bun.file(scalarBundle);
  // Built once, on first ask: the document only changes with the code.
  let document: string | undefined;
  const json = () =>
    (document ??= JSON.stringify(
      openapiDocument(operations, {
        info: { title: "mehir — Israeli supermarket prices API", version: "1.0.0", description: API_DESCRIPTION },
        tags: TAGS,
        webhooks: alertWebhooks(),
      }),
    ));
  return new Elysia({ name: "module.docs" })
    .get("/docs/json", () => new Response(json(), { headers: { "content-type": "application/json; charset=utf-8" } }))
    .get("/docs", () => new Response(docsPage({ title: "mehir API", specUrl: "/docs/json", scriptUrl: SCALAR_PATH }), { headers: { "content-type": "text/html; charset=utf-8" } }))
    .get(SCALAR_PATH, ({ set }) => {
      set.headers["content-type"] = "text/javascript; charset=utf-8";
      set.headers["cache-control"] = "public, max-age=86400";
      return scalar;
    })
    .get("/docs/errors", ({ set }) => {
      set.headers["content-type"] = "text/html; charset=utf-8";
      return errorsPage(operations);
    });
}

/** The API's documentation: the OpenAPI document, its UI and the error list. */
export const docsFeature: Feature = {
  name: "docs",
  routes: ({ operations }) => docsModule(operations),
};
