import * as z from "zod";
import { LiveMode } from "../../http/request/livemode.ts";
import { DateTime } from "../../openapi/formats.ts";

export const ChainParams = z.object({
  id: z.string().describe("Chain identifier (lowercase slug), e.g. `rami-levy`"),
});

export const ChainItem = z.object({
  chain_id: z.string().describe("Lowercase slug"),
  name: z.string().describe("Hebrew display name"),
  name_en: z.string(),
  chain_codes: z.array(z.string()).describe("The 13-digit GS1 codes the chain publishes under"),
  store_count: z.number().int(),
  product_count: z.number().int(),
  last_updated_at: DateTime.nullable().describe("Newest price file imported for the chain, ISO 8601 with offset"),
  status: z
    .enum(["ok", "stale", "no_data", "failing", "blocked"])
    .describe(
      "ok: updated within 36 h; stale: older; no_data: nothing imported; failing: the last fetch attempts failed; blocked: the portal refused the service's address (a challenge page, 403/247, no answer)",
    ),
  status_reason: z.string().nullable().describe("Why the status is not `ok`, in a sentence; null when `ok`"),
  last_attempt_at: DateTime.nullable().describe("When the service last tried the chain's portal (live mode), ISO 8601; the same as `last_fetch_attempt_at`"),
  next_attempt_at: DateTime.nullable().describe("When the collection loop lists the chain's portal next (live mode); null when not scheduled"),
  newest_file_at: DateTime.nullable().describe("Publication time of the newest file of the chain its portal listed (live mode)"),
  active: z.boolean().describe("False for a chain that is no longer fetched: merged into another or retired"),
  inactive_reason: z.string().nullable().describe("Why an inactive chain is not fetched; null when active"),
  inactive_since: z.string().nullable().describe("Since when (YYYY-MM-DD) the chain is inactive, when known"),
  merged_into: z.string().nullable().describe("The chain (`chain_id`) whose portal now carries this chain's files; its files there are imported as this chain"),
  source: z.enum(["demo", "live", "none"]).describe("Where the chain's data came from"),
  last_fetch_attempt_at: DateTime.nullable().describe("When the service last tried to fetch the chain's portal (live mode), ISO 8601"),
  last_fetch_success_at: DateTime.nullable().describe("When a fetch of the chain's portal last succeeded"),
  last_fetch_files: z.number().int().describe("Files the last fetch attempt downloaded (0 before any fetch)"),
  last_fetch_error: z.string().nullable().describe("Why the last fetch or the import of its files failed; null when it did not"),
  empty_file_flagged: z
    .boolean()
    .describe("A file of the chain parsed to zero rows in the last import that read its files: a broken or cut publication worth a look"),
});

export type ChainItem = z.infer<typeof ChainItem>;

export const ChainsResponse = z.object({
  data: z.array(ChainItem),
  meta: z.object({
    count: z.number().int().describe("Chains listed"),
    data_updated_at: DateTime.nullable(),
    source: z.string().describe("`demo` (the embedded demo data), `live`, or `none` before the first import"),
    quota_remaining: z.number().int().optional(),
    request_id: z.string().optional(),
    livemode: LiveMode,
  }),
});

/** A chain is stale when its newest data is older than this. */
export const STALE_AFTER_MS = 36 * 3600_000;
