import * as z from "zod";
import { ISRAEL_BOUNDS, inIsrael, parsePoint } from "../../geo/distance.ts";
import { invalidParameter } from "../../errors/api-error.ts";

const B = ISRAEL_BOUNDS;
// Phrases following the parameter's name (invalid-input.ts): "`near` must be …".
const NEAR_FORMAT = "must be `lat,lon` in decimal degrees, e.g. `32.0853,34.7818`";
const NEAR_BOUNDS = `must be a point in Israel (latitude ${B.minLat}–${B.maxLat}, longitude ${B.minLon}–${B.maxLon})`;
const RADIUS = "must be a number from 0.1 to 50";

export const DEFAULT_RADIUS_KM = 5;

/** `near` as text (query string or JSON body): `"lat,lon"`, inside Israel's bounding box. */
export const NearText = z
  .string()
  .max(60)
  .transform((text, ctx) => {
    const point = parsePoint(text);
    if (!point) {
      ctx.addIssue({ code: "custom", message: NEAR_FORMAT });
      return z.NEVER;
    }
    if (!inIsrael(point)) {
      ctx.addIssue({ code: "custom", message: NEAR_BOUNDS });
      return z.NEVER;
    }
    return point;
  })
  .meta({ type: "string", pattern: "^-?\\d{1,3}(\\.\\d+)?,-?\\d{1,3}(\\.\\d+)?$", example: "32.0853,34.7818" })
  .describe(`A point, \`lat,lon\` in decimal degrees (WGS84) inside Israel; only stores within \`radius_km\` of it count, each with its \`distance_km\``);

/**
 * `near` in a query string. Elysia hands a query value holding a comma to a zod schema as an
 * array of its parts (`near=32.08,34.78` → `["32.08", "34.78"]`): they are joined back first.
 */
export const NearQuery = z
  .preprocess((value) => (Array.isArray(value) ? value.join(",") : value), NearText)
  .meta({ type: "string", pattern: "^-?\\d{1,3}(\\.\\d+)?,-?\\d{1,3}(\\.\\d+)?$", example: "32.0853,34.7818" })
  .describe(NearText.description!);

/** `radius_km` in a query string: a decimal 0.1–50, default 5. */
export const RadiusKmQuery = z
  .string()
  .regex(/^\d{1,2}(\.\d{1,3})?$/, RADIUS)
  .transform(Number)
  .pipe(z.number().min(0.1, RADIUS).max(50, RADIUS))
  .optional()
  .meta({ type: "number", minimum: 0.1, maximum: 50, default: DEFAULT_RADIUS_KM })
  .describe("Radius around `near` in kilometres, 0.1–50 (default 5); only with `near`");

/** `radius_km` in a JSON body: a number 0.1–50. */
export const RadiusKmBody = z.number().min(0.1, RADIUS).max(50, RADIUS).optional().describe("Radius around `near` in kilometres, 0.1–50 (default 5); only with `near`");

/**
 * The `near` filter of a request: the point and its radius (default 5 km); a radius without a
 * point is 400 `invalid_parameter` (`radius_km`), since it would silently do nothing.
 */
export function nearFilter(near: { lat: number; lon: number } | undefined, radiusKm: number | undefined) {
  if (near === undefined) {
    if (radiusKm !== undefined) throw invalidParameter("radius_km", "`radius_km` needs `near` (the point it is measured from).");
    return undefined;
  }
  return { lat: near.lat, lon: near.lon, radiusKm: radiusKm ?? DEFAULT_RADIUS_KM };
}
