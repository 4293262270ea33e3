import { jsonSchema } from "../../openapi/document.ts";
import { AlertEvent } from "./model.ts";

/**
 * The OpenAPI 3.1 `webhooks` entry of the `price.alert` event: what the service POSTs to an
 * alert's URL, its headers, and what the receiver should answer.
 */
export function alertWebhooks() {
  return {
    "price.alert": {
      post: {
        operationId: "priceAlertEvent",
        summary: "A price alert's condition became true",
        description:
          "POSTed to the alert's `url` after the import that made its condition true (one event per alert and data version; not again while the condition stays true), and by `POST /api/v1/alerts/{id}/test/` (`data.test: true`).\n\n" +
          "**Verify every request** before trusting it: `Mehir-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` where the HMAC is of the string `<t>.<raw body>` keyed with the alert's secret (`whsec_…`, shown once at creation). " +
          "Compare in constant time, on the raw bytes (not re-serialized JSON), and refuse a `t` more than 5 minutes away from your clock (replays). `Mehir-Event-Id` equals the body's `id` and is the same on every retry: deduplicate on it.\n\n" +
          "Answer 2xx within 10 s (queue the work, answer first). Anything else — an error status, a redirect (3xx: never followed), a timeout — is retried with exponential backoff and jitter (about 10 s, 30 s, 2 min, 8 min, … up to 4 h apart) for 24 h, then the delivery is marked failed. An endpoint failing for 3 days is disabled (its alert says so).",
        tags: ["alerts"],
        security: [],
        parameters: [
          { name: "Mehir-Signature", in: "header", required: true, schema: { type: "string" }, example: "t=1764000000,v1=5f0c3b…", description: "`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\">`" },
          { name: "Mehir-Event-Id", in: "header", required: true, schema: { type: "string" }, example: "evt_3fQk…", description: "The event's id; the same on every retry" },
        ],
        requestBody: { required: true, content: { "application/json": { schema: jsonSchema(AlertEvent, "output") } } },
        responses: { "200": { description: "Any 2xx within 10 s acknowledges the event" } },
      },
    },
  };
}
