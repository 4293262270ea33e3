import { describe, expect, test } from "bun:test";
import { join, relative } from "node:path";
import { importsOf, sources, SRC } from "../helpers/source-imports.ts";

/** The import circles of a graph (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.map((f) => relative(SRC, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

describe("architecture", () => {
  test("no import circle in src/, type imports included", () => {
    const graph = new Map(sources(SRC).map((file) => [file, importsOf(file)]));
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });

  test("the checker finds a circle of type imports", () => {
    const a = join(SRC, "a.ts");
    const b = join(SRC, "b.ts");
    const c = join(SRC, "c.ts");
    expect(circles(new Map([[a, [b]], [b, [a]], [c, [a]]]))).toEqual([["a.ts", "b.ts"]]);
  });
});
