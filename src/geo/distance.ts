/**
 * Points and distances for "near me": WGS84 degrees, great-circle distance by the haversine
 * formula on a sphere of the Earth's mean radius (error under 0.5 %, far below what a store's
 * published address or a city centre can claim).
 */

export interface Point {
  lat: number;
  lon: number;
}

/** A point and a radius: the `near` and `radius_km` filters. */
export interface Near extends Point {
  radiusKm: number;
}

const EARTH_RADIUS_KM = 6371.0088;
const RAD = Math.PI / 180;

/**
 * Great-circle distance in kilometres.
 * @example distanceKm({ lat: 32.0853, lon: 34.7818 }, { lat: 31.7683, lon: 35.2137 }) // ≈ 54.0 (Tel Aviv → Jerusalem)
 */
export function distanceKm(a: Point, b: Point): number {
  const dLat = (b.lat - a.lat) * RAD;
  const dLon = (b.lon - a.lon) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * RAD) * Math.cos(b.lat * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * Israel's bounding box (with the Golan Heights and Judea and Samaria, where stores of the chains
 * are): Eilat's southern tip to Metula and Mount Hermon, the coast to the Jordan valley.
 */
export const ISRAEL_BOUNDS = { minLat: 29.45, maxLat: 33.35, minLon: 34.2, maxLon: 35.95 } as const;

export function inIsrael(p: Point): boolean {
  return p.lat >= ISRAEL_BOUNDS.minLat && p.lat <= ISRAEL_BOUNDS.maxLat && p.lon >= ISRAEL_BOUNDS.minLon && p.lon <= ISRAEL_BOUNDS.maxLon;
}

const DECIMAL = /^-?\d{1,3}(?:\.\d{1,12})?$/;

/**
 * `"lat,lon"` in decimal degrees → a point; null when malformed (not two decimal numbers).
 * @example parsePoint("32.0853,34.7818") // { lat: 32.0853, lon: 34.7818 }
 */
export function parsePoint(text: string): Point | null {
  const parts = text.split(",");
  if (parts.length !== 2) return null;
  const [lat, lon] = parts.map((p) => p.trim()) as [string, string];
  if (!DECIMAL.test(lat) || !DECIMAL.test(lon)) return null;
  return { lat: Number(lat), lon: Number(lon) };
}

/** Rounds a distance for the API: metres are noise next to an address, so 0.01 km. */
export function roundKm(km: number): number {
  return Math.round(km * 100) / 100;
}
