import * as z from "zod";
import { DateTime } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { REGIONS } from "../../geo/geo.ts";
import { NearQuery, RadiusKmQuery } from "../../http/request/near-params.ts";
import { Cursor, Limit } from "../catalog/model.ts";
import { ChainSlug } from "../prices/model.ts";

export const StoresQuery = z.object({
  near: NearQuery.optional(),
  radius_km: RadiusKmQuery,
  chain_id: ChainSlug.optional(),
  city: z.string().min(1).max(60).optional().describe("City: any common spelling, its English name or its CBS code"),
  limit: Limit,
  cursor: Cursor,
});

export const StoreItem = z.object({
  store_id: z.string().describe("The chain's store code, without leading zeros"),
  chain_id: z.string(),
  chain_name: z.string(),
  branch_name: z.string(),
  address: z.string().nullable(),
  city: z.string().nullable().describe("Hebrew city name (canonical spelling when known); null when the store list gives none"),
  region: z.enum(REGIONS).nullable(),
  zip: z.string().nullable(),
  store_type: z.enum(["physical", "online", "both"]).nullable().describe("From the Stores file's StoreType (1, 2, 3); null when not given"),
  status: z.enum(["open", "closed"]).describe("`closed` once a newer full Stores list of the chain no longer lists the store, or no list or file has named it for 30 days before the chain's newest full list"),
  coordinates: z
    .object({
      lat: z.number(),
      lon: z.number(),
      approximate: z.boolean().describe("true: the centre of the store's city (the Stores file gave no coordinates); false: as the Stores file published them"),
    })
    .nullable()
    .describe("null when neither the Stores file nor the locality table places the store"),
  distance_km: z.number().optional().describe("With `near`: kilometres from the point (0.01 km steps)"),
});

export const StoresResponse = z.object({
  data: z.array(StoreItem),
  meta: z.object({
    next_cursor: z.string().nullable(),
    data_updated_at: DateTime.nullable(),
    quota_remaining: z.number().int().optional(),
    request_id: z.string().optional(),
    livemode: LiveMode,
  }),
});
