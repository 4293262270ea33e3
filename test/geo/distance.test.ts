import { describe, expect, test } from "bun:test";
import centroidsJson from "../../data/locality-centroids.json" with { type: "json" };
import { distanceKm, inIsrael, parsePoint } from "../../src/geo/distance.ts";
import { buildCentroids, localityCentre } from "../../src/geo/locality-centroids.ts";
import { findCity, loadCities } from "../../src/geo/geo.ts";
import demoStores from "../../data/demo/stores.json" with { type: "json" };

describe("haversine distance", () => {
  test("known distances between city centres (great-circle, within 2 %)", () => {
    const between = (a: string, b: string) => distanceKm(localityCentre(a)!, localityCentre(b)!);
    // Published straight-line distances: Tel Aviv–Jerusalem ~54 km, Tel Aviv–Haifa ~81 km, Be'er Sheva–Eilat ~190 km.
    expect(between("תל אביב-יפו", "ירושלים")).toBeGreaterThan(53);
    expect(between("תל אביב-יפו", "ירושלים")).toBeLessThan(55.5);
    expect(between("תל אביב-יפו", "חיפה")).toBeGreaterThan(80);
    expect(between("תל אביב-יפו", "חיפה")).toBeLessThan(84);
    expect(between("באר שבע", "אילת")).toBeGreaterThan(185);
    expect(between("באר שבע", "אילת")).toBeLessThan(196);
    expect(distanceKm({ lat: 32, lon: 35 }, { lat: 32, lon: 35 })).toBe(0);
  });

  test("parsePoint takes `lat,lon` decimal degrees only", () => {
    expect(parsePoint("32.0853,34.7818")).toEqual({ lat: 32.0853, lon: 34.7818 });
    expect(parsePoint(" 32.0853 , 34.7818 ")).toEqual({ lat: 32.0853, lon: 34.7818 });
    for (const bad of ["32.08", "32.08,34.78,1", "a,b", "1e1,34", "0x10,34", "32.08;34.78", "", ","]) expect(parsePoint(bad)).toBeNull();
  });

  test("Israel's bounding box holds Eilat, Metula, the Golan and the coast, not points east of 35.95°E, Cairo or Beirut (a box: it also holds parts of Jordan and Sinai)", () => {
    for (const p of [{ lat: 29.5577, lon: 34.9519 }, { lat: 33.278, lon: 35.579 }, { lat: 33.269, lon: 35.77 }, { lat: 32.0853, lon: 34.7818 }]) expect(inIsrael(p)).toBe(true);
    for (const p of [{ lat: 31.95, lon: 35.99 }, { lat: 30.04, lon: 31.24 }, { lat: 33.89, lon: 35.5 }]) expect(inIsrael(p)).toBe(false);
  });
});

describe("locality centroid table (data/locality-centroids.json)", () => {
  test("every entry names a locality of data/cities.json, once, inside Israel; every demo store's city is placed", () => {
    const table = buildCentroids(centroidsJson);
    expect(table.size).toBe(centroidsJson.localities.length);
    expect(table.size).toBeGreaterThan(200);
    // The large cities (over ~50,000 people) are all there.
    for (const code of [3000, 5000, 4000, 8300, 7900, 70, 7400, 9000, 6600, 6100, 8600, 7100, 8400, 6200, 1200, 6400, 6900, 6500, 8700, 7000, 8500, 2610, 1061, 7300, 3797, 3780, 1161, 2600]) {
      expect(table.has(loadCities().byCode.get(code)!.name)).toBe(true);
    }
    for (const list of Object.values(demoStores.chains) as { city: string }[][]) {
      for (const store of list) {
        const city = findCity(store.city);
        if (city) expect([city.name, table.has(city.name)]).toEqual([city.name, true]);
      }
    }
  });

  test("an entry that names no known locality, or lies outside Israel, is refused", () => {
    expect(() => buildCentroids({ localities: [{ code: 99999, name: "לא קיים", lat: 32, lon: 35 }] })).toThrow(/not in data\/cities.json/);
    expect(() => buildCentroids({ localities: [{ code: 4000, name: "חיפה", lat: 40, lon: 35 }] })).toThrow(/outside Israel/);
    expect(() => buildCentroids({ localities: [{ code: 4000, name: "ירושלים", lat: 32, lon: 35 }] })).toThrow(/is חיפה/);
  });
});
