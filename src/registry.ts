import * as z from "zod";
import registryJson from "../data/chains.json" with { type: "json" };

export const PORTAL_FAMILIES = [
  "cerberus",
  "bina",
  "laib",
  "publishprice",
  "shufersal",
  "superpharm",
  "wolt",
  "hazihinam",
  "citymarket",
  "netivhahesed",
  "meshnatyosef",
] as const;

export const PortalSchema = z.object({
  family: z.enum(PORTAL_FAMILIES),
  base_url: z.string().url(),
  username: z.string().nullable().default(null),
  password: z.string().nullable().default(null),
  /** Sub-folder or path segment some portals need (Cerberus `/Yuda`, Laib `/victory`). */
  folder: z.string().nullable().default(null),
  /** A second way in (Cerberus FTP, Bina mirror), tried when the first fails. */
  fallback_url: z.string().nullable().default(null),
  notes: z.string().optional(),
});

export const ChainSchema = z.object({
  slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
  name: z.string().min(1),
  name_en: z.string().min(1),
  legal_name: z.string().optional(),
  /** 13-digit GS1 codes, plus odd forms seen in files (e.g. Stop Market's `72906390`). */
  chain_codes: z.array(z.string().regex(/^\d{1,13}$/)).min(1),
  portal: PortalSchema,
  /** Further portals the chain also publishes on, fetched as well (City Market: its shop site + Bina Kiryat Gat). */
  extra_portals: z.array(PortalSchema).optional(),
  /** False for chains that stopped publishing; kept so old files still import. */
  active: z.boolean().default(true),
  /** Why an inactive chain is not fetched, since when, and the chain it folded into (if any). */
  inactive: z
    .object({
      reason: z.string().min(1),
      /** YYYY-MM-DD; null when not known. */
      since: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable().default(null),
      merged_into: z.string().nullable().default(null),
    })
    .optional(),
});

export const RegistrySchema = z.array(ChainSchema).min(1);

export type Chain = z.infer<typeof ChainSchema>;
export type Portal = z.infer<typeof PortalSchema>;

export interface Registry {
  chains: Chain[];
  bySlug: Map<string, Chain>;
  /** Code without leading zeros → chain. */
  byCode: Map<string, Chain>;
}

/** `0000072906390` → `72906390`. */
export function normaliseCode(code: string): string {
  return code.replace(/^0+(?=\d)/, "");
}

/**
 * Validates a registry (the parsed JSON of data/chains.json) and indexes it. Throws on a
 * malformed entry, a duplicate slug or a code claimed by two chains, and — for a whole registry —
 * a chain merged into one it does not hold (a worker handed some chains passes `whole: false`).
 */
export function buildRegistry(input: unknown, { whole = true }: { whole?: boolean } = {}): Registry {
  const chains = RegistrySchema.parse(input);
  const bySlug = new Map<string, Chain>();
  const byCode = new Map<string, Chain>();
  for (const chain of chains) {
    if (bySlug.has(chain.slug)) throw new Error(`registry: duplicate slug ${chain.slug}`);
    if (chain.active && chain.inactive) throw new Error(`registry: ${chain.slug} is active but says why it is not`);
    bySlug.set(chain.slug, chain);
    for (const code of chain.chain_codes) {
      const key = normaliseCode(code);
      const other = byCode.get(key);
      if (other) throw new Error(`registry: code ${code} belongs to both ${other.slug} and ${chain.slug}`);
      byCode.set(key, chain);
    }
  }
  for (const chain of chains) {
    const into = chain.inactive?.merged_into;
    if (whole && into && !bySlug.has(into)) throw new Error(`registry: ${chain.slug} merged into unknown chain ${into}`);
  }
  return { chains, bySlug, byCode };
}

let cached: Registry | undefined;

/** The registry embedded in the binary (data/chains.json), validated once. */
export function loadRegistry(): Registry {
  cached ??= buildRegistry(registryJson);
  return cached;
}
