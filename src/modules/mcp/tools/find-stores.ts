import * as z from "zod";
import { defineTool } from "../tool.ts";
import { GET_STORES } from "../../stores/index.ts";
import { ChainId, City, Cursor, Point, RadiusKm, nearParam } from "../arguments.ts";
import { count, lines } from "../text.ts";

/** A store as a line: chain and branch, address, distance, and what the user should know (approximate place, closed). */
function storeLine(s: any): string {
  const place = [s.address, s.city].filter(Boolean).join(", ");
  const distance = typeof s.distance_km === "number" ? ` — ${s.distance_km} km` : "";
  const notes = [s.coordinates?.approximate ? "location approximate (city centre)" : "", s.status === "closed" ? "closed" : ""].filter(Boolean).join(", ");
  return `- ${s.chain_name} ${s.branch_name}${place ? `, ${place}` : ""}${distance}${notes ? ` (${notes})` : ""}`;
}

export const findStores = defineTool({
  name: "find_stores",
  title: "Find stores / איתור סניפים",
  operation: GET_STORES,
  description:
    "Supermarket stores near a point (nearest first, within `radius_km`) or in a city, with chain, branch name, address, distance and whether the store is " +
    "still open per the chain's store list. Stores whose coordinates the chains do not publish are placed at their city's centre, flagged as approximate. " +
    "סניפים של רשתות השיווק ליד מיקום מסוים (מהקרוב לרחוק) או בעיר, עם כתובת ומרחק. " +
    "{Plan}. Cost: 1 API call per page.",
  input: z
    .object({
      near: Point.optional().describe("A point in Israel (the user's location / מיקום), e.g. { lat: 32.794, lon: 34.989 } in Haifa: stores within radius_km, nearest first"),
      radius_km: RadiusKm.optional(),
      city: City.optional().describe("Only stores in this city (עיר)"),
      chain_id: ChainId.optional().describe("Only this chain's stores"),
      limit: z.number().int().min(1).max(100).default(20).describe("Stores per page, 1–100 (default 20)"),
      cursor: Cursor.optional(),
    })
    .strict(),
  request: (args) => ({
    method: "GET",
    path: "/api/v1/stores/",
    query: { near: nearParam(args.near), radius_km: args.radius_km, city: args.city, chain_id: args.chain_id, limit: args.limit, cursor: args.cursor },
  }),
  summary: (data: any[], meta, args) => {
    const where = [args.near ? `within ${args.radius_km ?? 5} km of ${args.near.lat},${args.near.lon}` : "", args.city ? `in ${args.city}` : ""].filter(Boolean).join(" ");
    if (data.length === 0) return `No stores${where ? ` ${where}` : ""}.`;
    const more = meta.next_cursor ? ["More: call again with cursor = meta.next_cursor."] : [];
    return [`${count(data.length, "store")}${where ? ` ${where}` : ""}${args.near ? ", nearest first" : ""}:`, ...lines(data, 100, storeLine), ...more].join("\n");
  },
});
