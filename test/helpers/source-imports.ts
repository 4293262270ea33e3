import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The source folder the architecture tests read. */
export const SRC = resolve(import.meta.dir, "../../src");

/** Every .ts file under a folder. */
export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/**
 * The files of ours a source file imports — value and type imports alike (`import type`, `export
 * … from`, `import("…")` in types): a circle of type imports is still a circle for a reader.
 * `declare module "…"` (a module adding to an interface another declares) is not an import.
 */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/gm),
    ...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
    ...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ].map((m) => m[1]!);
  return specifiers.filter((s) => s.startsWith(".")).map((s) => resolve(dirname(file), s)).filter((path) => path.startsWith(SRC) && path.endsWith(".ts"));
}
