import * as z from "zod";
import centroidsJson from "../../data/locality-centroids.json" with { type: "json" };
import { findCity, type CityIndex, loadCities } from "./geo.ts";
import { inIsrael, type Point } from "./distance.ts";

const Centroid = z.object({
  code: z.number().int().positive().optional(),
  name: z.string().min(1),
  lat: z.number(),
  lon: z.number(),
});

/**
 * The centres of the localities in data/locality-centroids.json by canonical Hebrew city name
 * (the name stored in `stores.city`). Entries are checked against data/cities.json: each must
 * name a known locality (by code, else by name) and lie in Israel.
 */
export function buildCentroids(input: unknown, cities: CityIndex = loadCities()): Map<string, Point> {
  const list = z.object({ localities: z.array(Centroid) }).parse(input).localities;
  const out = new Map<string, Point>();
  for (const entry of list) {
    const city = entry.code !== undefined ? cities.byCode.get(entry.code) : findCity(entry.name, cities);
    if (!city) throw new Error(`locality-centroids: ${entry.code ?? entry.name} is not in data/cities.json`);
    if (city.name !== entry.name) throw new Error(`locality-centroids: code ${entry.code} is ${city.name}, not ${entry.name}`);
    if (!inIsrael(entry)) throw new Error(`locality-centroids: ${entry.name} (${entry.lat}, ${entry.lon}) is outside Israel`);
    if (out.has(city.name)) throw new Error(`locality-centroids: ${city.name} listed twice`);
    out.set(city.name, { lat: entry.lat, lon: entry.lon });
  }
  return out;
}

let cached: Map<string, Point> | undefined;

/**
 * The centre of a stored city name (canonical Hebrew), or undefined when the table has none.
 * @example localityCentre("חיפה") // { lat: 32.794, lon: 34.9896 }
 */
export function localityCentre(city: string | null): Point | undefined {
  if (city === null) return undefined;
  cached ??= buildCentroids(centroidsJson);
  return cached.get(city);
}
