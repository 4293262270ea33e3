import type { Database } from "bun:sqlite";
import { stmt } from "../../db/statements.ts";
import { cityFilterName, findCity } from "../../geo/geo.ts";
import { ApiError } from "../../errors/api-error.ts";

/**
 * The stored city name a `city` filter means (cityFilterName: any spelling, English name or CBS
 * code of a known locality), or 404 `city_not_found` — like an unknown `chain_id` — when the text
 * is neither a locality the service knows nor the city of any store in the data. A known city
 * with no stores is an empty answer, not an error.
 *
 * @example requireCity(deps, "תל אביב") // "תל אביב-יפו"
 */
export function requireCity(deps: { db: { prices: Database } }, raw: string, param = "city"): string {
  const name = cityFilterName(raw);
  if (findCity(raw)) return name;
  if (stmt(deps.db.prices, "SELECT 1 FROM stores WHERE city = ? LIMIT 1").get(name)) return name;
  // The text is not echoed back: it is whatever the client sent.
  throw new ApiError("city_not_found", "No locality the service knows has this name, and no store is in a city of this name; GET /api/v1/stores/ lists the stores with their cities.", { param });
}
