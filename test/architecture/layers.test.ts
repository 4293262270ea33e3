import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { importsOf, sources, SRC } from "../helpers/source-imports.ts";

/**
 * The layering docs/architecture.md draws, checked on the imports (type imports included):
 * src/http/ is plumbing and imports no feature (features hand it their declarations and handlers:
 * src/modules/feature.ts); the data side (ingest, demo, pricing, search, …) imports no HTTP module;
 * the root of src/ keeps its entry points and composition only.
 */

/** What src/http/ must not import: the features, the services they use, and the composition root that wires them. */
const FEATURES = ["modules", "accounts", "alerts", "pricing", "search", "exports", "ingest", "demo", "identity", "cluster", "sandbox", "access", "registry.ts", "services.ts", "app.ts", "server.ts", "main.ts"];

/** The data side: what it reads, writes and computes knows nothing of HTTP. */
const DATA_SIDE = ["ingest", "demo", "identity", "pricing", "search", "exports", "alerts", "accounts", "db", "data", "geo", "lib", "errors", "registry.ts", "config.ts", "workers.ts"];

/** The first segment of a source path below src/ (a folder, or a root file). */
const room = (file: string) => relative(SRC, file).split("/")[0]!;

/** Each import from a file in one of `from` to a file in one of `to`, as `a.ts -> b.ts`. */
function crossings(graph: Map<string, string[]>, from: readonly string[], to: readonly string[]): string[] {
  return [...graph].flatMap(([file, imports]) =>
    from.includes(room(file)) ? imports.filter((target) => to.includes(room(target))).map((target) => `${relative(SRC, file)} -> ${relative(SRC, target)}`) : [],
  );
}

const graph = new Map(sources(SRC).map((file) => [file, importsOf(file)]));

describe("layering", () => {
  test("src/http/ imports no feature", () => {
    expect(crossings(graph, ["http"], FEATURES)).toEqual([]);
  });

  test("the data side imports no HTTP module", () => {
    expect(crossings(graph, DATA_SIDE, ["http"])).toEqual([]);
  });

  test("the root of src/ holds at most ten files: entry points and composition", () => {
    const root = readdirSync(SRC).filter((name) => name.endsWith(".ts"));
    expect(root.length).toBeLessThanOrEqual(10);
  });

  test("the checker finds a crossing", () => {
    const fake = new Map([[join(SRC, "http/x.ts"), [join(SRC, "modules/prices/index.ts"), join(SRC, "http/y.ts")]]]);
    expect(crossings(fake, ["http"], FEATURES)).toEqual(["http/x.ts -> modules/prices/index.ts"]);
  });
});
