import { readFileSync } from "node:fs";
import * as z from "zod";
import type { Chain, Portal } from "../../registry.ts";

/** One chain's portal overrides in MEHIR_SOURCES_FILE; every field optional. */
export const SourceOverrideSchema = z
  .object({
    base_url: z.string().url().optional(),
    username: z.string().nullable().optional(),
    password: z.string().nullable().optional(),
    folder: z.string().nullable().optional(),
    fallback_url: z.string().nullable().optional(),
  })
  .strict();

/** MEHIR_SOURCES_FILE: JSON object, chain slug → `{ base_url, username, password, folder, fallback_url }`. */
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
  const o = overrides?.[chain.slug];
  if (!o) return chain.portal;
  const merged: Portal = { ...chain.portal };
  for (const key of ["base_url", "username", "password", "folder", "fallback_url"] as const) {
    if (o[key] !== undefined) (merged as Record<string, unknown>)[key] = o[key];
  }
  return merged;
}
