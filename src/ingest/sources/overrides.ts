import { readFileSync } from "node:fs";
import * as z from "zod";
import type { Chain, Portal } from "../../registry.ts";

const PORTAL_FIELDS = {
  base_url: z.string().url().optional(),
  username: z.string().nullable().optional(),
  password: z.string().nullable().optional(),
  folder: z.string().nullable().optional(),
  fallback_url: z.string().url().nullable().optional(),
};

/** Overrides of one further portal of a chain (`extra_portals`, by position; null keeps it). */
export const PortalOverrideSchema = z.object(PORTAL_FIELDS).strict();

/** One chain's portal overrides in MEHIR_SOURCES_FILE; every field optional. */
export const SourceOverrideSchema = z
  .object({
    ...PORTAL_FIELDS,
    extra_portals: z.array(PortalOverrideSchema.nullable()).optional(),
    /** The chain's requests go through this HTTP proxy (an Israeli egress for portals refusing others), whatever HTTPS_PROXY says. */
    proxy: z.url({ protocol: /^https?$/ }).nullable().optional(),
  })
  .strict();

/**
 * MEHIR_SOURCES_FILE: JSON object, chain slug → `{ base_url, username, password, folder,
 * fallback_url, extra_portals? }`; `extra_portals[i]` overrides the registry's i-th further portal.
 */
export const SourcesOverrideSchema = z.record(z.string(), SourceOverrideSchema);
export type SourcesOverride = z.infer<typeof SourcesOverrideSchema>;

export class SourcesFileError extends Error {
  override name = "SourcesFileError";
}

/**
 * Reads and validates a sources file; unknown fields or a malformed file throw a
 * SourcesFileError naming the file.
 *
 * @example loadSourcesFile("/etc/mehir/sources.json") // { "rami-levy": { base_url: "https://…" } }
 */
export function loadSourcesFile(path: string): SourcesOverride {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new SourcesFileError(`sources file ${path}: ${(error as Error).message}`);
  }
  const parsed = SourcesOverrideSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SourcesFileError(`sources file ${path}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * The chain's main portal with the overrides for its slug applied.
 * @example effectivePortal(chain, { "rami-levy": { base_url: "https://mirror.example" } }).base_url // "https://mirror.example"
 */
export function effectivePortal(chain: Chain, overrides: SourcesOverride | undefined): Portal {
  return applyOverride(chain.portal, overrides?.[chain.slug]);
}

/**
 * The chain's further portals (`extra_portals`) with the overrides of its slug's
 * `extra_portals` list applied position by position.
 * @example effectiveExtraPortals(cityMarket, { "city-market": { extra_portals: [{ base_url: "http://127.0.0.1:8081" }] } })[0].base_url // "http://127.0.0.1:8081"
 */
export function effectiveExtraPortals(chain: Chain, overrides: SourcesOverride | undefined): Portal[] {
  const list = overrides?.[chain.slug]?.extra_portals ?? [];
  return (chain.extra_portals ?? []).map((portal, i) => applyOverride(portal, list[i] ?? undefined));
}

function applyOverride(portal: Portal, o: z.infer<typeof PortalOverrideSchema> | undefined): Portal {
  if (!o) return portal;
  const merged: Portal = { ...portal };
  for (const key of ["base_url", "username", "password", "folder", "fallback_url"] as const) {
    if (o[key] !== undefined) (merged as Record<string, unknown>)[key] = o[key];
  }
  return merged;
}
