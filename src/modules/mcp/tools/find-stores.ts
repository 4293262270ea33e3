import * as z from "zod";
import { defineTool } from "../tool.ts";
import { ChainId, City, Cursor, Point, RadiusKm, nearParam } from "../arguments.ts";
import { lines } from "../text.ts";

export const findStores = defineTool({
  name: "find_stores",
  title: "Stores near a point / סניפים בקרבת מקום",
  plan: "free",
  description:
    "Supermarket stores within a radius of a point, nearest first, with distance, address, city, chain and whether the store is open per the chain's store list. " +
    "Coordinates the chains do not publish are the city's centre, flagged as approximate. " +
    "סניפים של רשתות השיווק ליד מיקום מסוים, מהקרוב לרחוק, עם כתובת ומרחק. " +
    "Plan: Free. Cost: 1 API call.",
  input: z
    .object({
      near: Point,
      radius_km: RadiusKm.optional(),
      chain_id: ChainId.optional().describe("Only this chain's stores"),
      city: City.optional().describe("Only stores in this city"),
      limit: z.number().int().min(1).max(100).default(20).describe("Stores per page, 1–100 (default 20)"),
      cursor: Cursor.optional(),
    })
    .strict(),
  request: (args) => ({
    method: "GET",
    path: "/api/v1/stores/",
    query: { near: nearParam(args.near), radius_km: args.radius_km, chain_id: args.chain_id, city: args.city, limit: args.limit, cursor: args.cursor },
  }),
  summary: (data: any[], meta, args) => {
    if (data.length === 0) return `No stores within ${args.radius_km ?? 5} km of ${args.near.lat},${args.near.lon}.`;
    const head = `${data.length} stores nearest to ${args.near.lat},${args.near.lon}:`;
    const rows = lines(data, 100, (s) => {
      const place = [s.address, s.city].filter(Boolean).join(", ");
      const name = s.branch_name ?? s.name ?? s.store_id;
      const approximate = s.location_approximate || s.approximate ? " (approximate location)" : "";
      return `- ${s.chain_name} ${name}${place ? `, ${place}` : ""} — ${s.distance_km} km${approximate}`;
    });
    const more = meta.next_cursor ? ["More: call again with cursor = meta.next_cursor."] : [];
    return [head, ...rows, ...more].join("\n");
  },
});
