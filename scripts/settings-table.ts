/**
 * Prints the Markdown table of every setting of `mehir serve`, generated from SettingsSchema in
 * src/config.ts (so the README's table stays in sync with the code):
 *
 *   bun scripts/settings-table.ts > /tmp/settings.md
 *
 * Columns: environment variable, flag, default, accepted values, description.
 */
import { SettingsSchema, envName, flagName } from "../src/config.ts";

interface ZodDef {
  type: string;
  defaultValue?: unknown;
  innerType?: { def: ZodDef };
  in?: { def: ZodDef };
  entries?: Record<string, string>;
  checks?: { _zod: { def: { check: string; value?: number; inclusive?: boolean; minimum?: number; format?: string; pattern?: RegExp; error?: () => unknown } } }[];
}

/** What a setting accepts, in words. */
function accepted(def: ZodDef): string {
  switch (def.type) {
    case "default":
    case "optional":
      return accepted(def.innerType!.def);
    case "pipe":
      // The on/off settings: a union of boolean and text turned into a boolean.
      return "`on`/`off` (also true/false, 1/0, yes/no)";
    case "enum":
      return Object.values(def.entries ?? {})
        .map((v) => `\`${v}\``)
        .join(", ");
    case "number": {
      const checks = (def.checks ?? []).map((c) => c._zod.def);
      const min = checks.find((c) => c.check === "greater_than")?.value;
      const max = checks.find((c) => c.check === "less_than")?.value;
      const integer = checks.some((c) => c.format === "safeint");
      const kind = integer ? "whole number" : "number";
      if (min !== undefined && max !== undefined) return `${kind} ${min}–${max}`;
      if (min !== undefined) return `${kind} ≥ ${min}`;
      return kind;
    }
    case "string": {
      // A pattern is named by its message ("expected HH:MM", "expected HOST:PORT, e.g. …").
      const regex = (def.checks ?? []).map((c) => c._zod.def).find((c) => c.format === "regex");
      const named = regex?.error ? /^expected ([^,]+)/.exec(String(regex.error()))?.[1] : undefined;
      return regex ? `\`${named ?? "text"}\`` : "text";
    }
    default:
      return def.type;
  }
}

function defaultOf(def: ZodDef): string {
  if (def.type !== "default") return "—";
  const value = typeof def.defaultValue === "function" ? (def.defaultValue as () => unknown)() : def.defaultValue;
  if (typeof value === "boolean") return value ? "`on`" : "`off`";
  return `\`${String(value)}\``;
}

/** The Markdown table (one row per setting, in the schema's order). */
export function settingsTable(): string {
  const rows = Object.entries(SettingsSchema.shape).map(([key, schema]) => {
    const s = schema as unknown as { def: ZodDef; description?: string };
    return `| \`${envName(key)}\` | \`${flagName(key)}\` | ${defaultOf(s.def)} | ${accepted(s.def)} | ${(s.description ?? "").replace(/\|/g, "\\|")} |`;
  });
  return ["| Environment variable | Flag | Default | Accepts | What it does |", "|---|---|---|---|---|", ...rows].join("\n");
}

if (import.meta.main) console.log(settingsTable());
