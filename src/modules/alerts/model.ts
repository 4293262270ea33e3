import * as z from "zod";
import { LiveMode } from "../../http/request/livemode.ts";
import { DateTime } from "../../openapi/formats.ts";
import { Barcode, ChainSlug } from "../prices/model.ts";
import { Cursor, Limit } from "../catalog/model.ts";
import { MAX_URL_LENGTH } from "../../alerts/url-guard.ts";

const Money = z.string().regex(/^\d+\.\d{2}$/);

/** Exactly one of below_ils, drop_pct, promotion. */
export const ConditionInput = z
  .object({
    below_ils: z
      .string()
      .regex(/^\d{1,6}(\.\d{1,2})?$/, "must be an amount in shekels, e.g. \"9.90\"")
      .refine((v) => Number(v) > 0, "must be above 0")
      .optional()
      .describe("Fires when the lowest effective price goes below this amount (strictly)"),
    drop_pct: z.number().int("must be a whole percentage").min(1).max(99).optional().describe("Fires when the lowest effective price falls by at least this percentage since the previous data version"),
    promotion: z.literal(true).optional().describe("Fires when a promotion open to all customers starts lowering the price at a chain"),
  })
  .strict()
  .refine((c) => [c.below_ils, c.drop_pct, c.promotion].filter((v) => v !== undefined).length === 1, "must have exactly one of `below_ils`, `drop_pct` or `promotion`")
  .describe("One of `{ \"below_ils\": \"9.90\" }`, `{ \"drop_pct\": 10 }`, `{ \"promotion\": true }`");

export const CreateAlertBody = z
  .object({
    url: z.string().min(1).max(MAX_URL_LENGTH).describe("Your HTTPS endpoint; events are POSTed to it"),
    barcode: Barcode,
    chain_id: ChainSlug.optional().describe("The chain of a chain-internal item code (as search and catalog items give it)"),
    chain_ids: z.array(ChainSlug).min(1).max(50).optional().describe("Watch only these chains (default: every chain)"),
    city: z.string().trim().min(1).max(60).optional().describe("Watch only the stores of this city (any common spelling, English name or CBS code)"),
    condition: ConditionInput,
  })
  .strict();
export type CreateAlertBody = z.infer<typeof CreateAlertBody>;

export const AlertParams = z.object({ id: z.string().regex(/^alrt_[0-9A-Za-z]{24}$/, "must be an alert id: `alrt_` and 24 letters or digits") });

export const PageQuery = z.object({ limit: Limit, cursor: Cursor });

export const AlertObject = z.object({
  id: z.string(),
  url: z.string(),
  barcode: z.string(),
  chain_id: z.string().nullable(),
  chain_ids: z.array(z.string()),
  city: z.string().nullable(),
  condition: z.union([z.object({ below_ils: Money }), z.object({ drop_pct: z.number().int() }), z.object({ promotion: z.literal(true) })]),
  status: z.enum(["active", "disabled"]),
  disabled_at: DateTime.nullable(),
  disabled_reason: z.string().nullable(),
  secret_last4: z.string().describe("The last 4 characters of the signing secret"),
  last_evaluation: z
    .object({
      data_version: z.number().int(),
      effective_price_ils: Money.nullable().describe("The lowest effective price among the alert's chains at that data version; null when none sells it"),
      condition_met: z.boolean(),
    })
    .nullable(),
  created_at: DateTime,
});

export const CreatedAlert = AlertObject.extend({
  secret: z.string().describe("The signing secret (`whsec_…`), shown only in this answer"),
});

export const DeliveryObject = z.object({
  event_id: z.string(),
  test: z.boolean(),
  status: z.enum(["pending", "succeeded", "failed"]),
  attempts: z.number().int(),
  last_response_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: DateTime,
  last_attempt_at: DateTime.nullable(),
  next_retry_at: DateTime.nullable(),
  completed_at: DateTime.nullable(),
  payload: z.unknown().describe("The event as sent (see the webhooks section)"),
});

// The app's hooks fill these after the handler (optional here, required in the OpenAPI document).
const Meta = z.object({ quota_remaining: z.number().int().optional(), request_id: z.string().optional(), livemode: LiveMode.optional() });
const PageMeta = Meta.extend({ next_cursor: z.string().nullable() });

export const AlertResponse = z.object({ data: AlertObject, meta: Meta });
export const CreatedAlertResponse = z.object({ data: CreatedAlert, meta: Meta });
export const AlertListResponse = z.object({ data: z.array(AlertObject), meta: PageMeta });
export const DeletedResponse = z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }), meta: Meta });
export const DeliveryListResponse = z.object({ data: z.array(DeliveryObject), meta: PageMeta });
export const DeliveryResponse = z.object({ data: DeliveryObject, meta: Meta });

/** The webhook event (OpenAPI `webhooks`). */
export const AlertEvent = z.object({
  id: z.string().describe("Event id (`evt_…`), also in the Mehir-Event-Id header; the same on every retry"),
  type: z.literal("price.alert"),
  created: z.string().describe("When the event was made, ISO 8601"),
  data: z.object({
    alert_id: z.string(),
    test: z.boolean().describe("True for events sent by POST /api/v1/alerts/{id}/test/"),
    condition: AlertObject.shape.condition,
    product: z.object({ barcode: z.string(), chain_id: z.string().nullable(), name: z.string().nullable() }),
    city: z.string().nullable(),
    chains: z
      .array(
        z.object({
          chain_id: z.string(),
          chain_name: z.string(),
          store_count: z.number().int(),
          price_ils: Money.describe("The chain price (shelf)"),
          old_effective_price_ils: Money.nullable(),
          effective_price_ils: Money,
        }),
      )
      .describe("The chains the event is about: under the amount (below_ils), at the new lowest price (drop_pct), whose promotion started (promotion)"),
    store_count: z.number().int().describe("Stores of those chains carrying the product"),
    old_effective_price_ils: Money.nullable().describe("The lowest effective price among the alert's chains at the previous evaluation"),
    new_effective_price_ils: Money.nullable(),
    data_version: z.number().int(),
    data_updated_at: DateTime.nullable(),
  }),
});
