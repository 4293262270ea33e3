import { describe, expect, test } from "bun:test";
import registryJson from "../data/chains.json" with { type: "json" };
import { buildRegistry, loadRegistry, normaliseCode, PORTAL_FAMILIES } from "../src/registry.ts";

describe("data/chains.json", () => {
  const registry = loadRegistry();

  test("validates and holds at least 30 chains", () => {
    expect(() => buildRegistry(registryJson)).not.toThrow();
    expect(registry.chains.length).toBeGreaterThanOrEqual(30);
  });

  test("every chain code belongs to exactly one chain", () => {
    const all = registry.chains.flatMap((c) => c.chain_codes.map(normaliseCode));
    expect(new Set(all).size).toBe(all.length);
  });

  test("every portal family is used by at least one active chain", () => {
    const used = new Set(
      registry.chains.filter((c) => c.active).flatMap((c) => [c.portal.family, ...(c.extra_portals ?? []).map((p) => p.family)]),
    );
    for (const family of PORTAL_FAMILIES) expect(used.has(family)).toBe(true);
  });

  test("odd and historical codes resolve to their chain", () => {
    expect(registry.byCode.get(normaliseCode("0000072906390"))?.slug).toBe("stop-market");
    expect(registry.byCode.get(normaliseCode("729049000005"))?.slug).toBe("dor-alon");
    expect(registry.byCode.get("7290725900003")?.slug).toBe("carrefour");
    expect(registry.byCode.get("7290873900009")?.slug).toBe("fresh-market");
    expect(registry.byCode.get("2222222")?.slug).toBe("meshnat-yosef");
    expect(registry.byCode.get("7290055755557")?.active).toBe(false);
  });

  test("slugs the rest of the code relies on exist", () => {
    for (const slug of ["shufersal", "rami-levy", "super-pharm", "carrefour", "city-market", "meshnat-yosef", "wolt-market"]) {
      expect(registry.bySlug.has(slug)).toBe(true);
    }
  });

  test("Cerberus chains carry a username; published passwords are present", () => {
    for (const chain of registry.chains.filter((c) => c.portal.family === "cerberus")) {
      expect(chain.portal.username).toBeTruthy();
    }
    expect(registry.bySlug.get("yellow")!.portal.password).toBe("paz468");
    expect(registry.bySlug.get("super-yuda")!.portal.folder).toBe("/Yuda");
  });

  test("portals are named by host name, never a bare IP address (addresses change; overrides go in MEHIR_SOURCES_FILE)", () => {
    const urls = registry.chains.flatMap((c) => [c.portal, ...(c.extra_portals ?? [])].flatMap((p) => [p.base_url, p.fallback_url ?? []].flat()));
    expect(urls.length).toBeGreaterThan(30);
    expect(urls.filter((url) => /^\d+\.\d+\.\d+\.\d+$|:/.test(new URL(url).hostname))).toEqual([]);
  });

  test("a code claimed twice is rejected", () => {
    const twice = [
      { slug: "a", name: "א", name_en: "A", chain_codes: ["7290000001"], portal: { family: "bina", base_url: "https://a.example" } },
      { slug: "b", name: "ב", name_en: "B", chain_codes: ["0007290000001"], portal: { family: "bina", base_url: "https://b.example" } },
    ];
    expect(() => buildRegistry(twice)).toThrow(/belongs to both/);
  });
});

test("a chain merged into another: the whole registry must hold it; one chain handed to a worker is read alone", async () => {
  const { buildRegistry, loadRegistry } = await import("../src/registry.ts");
  const cofix = loadRegistry().bySlug.get("super-cofix")!;
  expect(cofix.inactive?.merged_into).toBe("rami-levy");
  expect(() => buildRegistry([cofix])).toThrow("super-cofix merged into unknown chain rami-levy");
  expect(buildRegistry([cofix], { whole: false }).chains[0]!.slug).toBe("super-cofix");
});
