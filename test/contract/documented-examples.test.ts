/**
 * The docs' examples work (issue 43 part 3). The docs page's "Test request" fills every parameter
 * with its documented example (and an enum without one with its first value: how a first example
 * came back empty, a Haifa city with the Jerusalem region). So every enum parameter names its
 * example, and the real answers made with all of an operation's examples together — the response
 * examples the document shows, regenerated from the demo data by `npm run openapi:examples` and
 * kept current by response-examples.test.ts — hold data.
 */
import { expect, test } from "bun:test";
import { OPERATIONS } from "../../src/modules/index.ts";
import examples from "../../src/openapi/response-examples.json" with { type: "json" };

/** Names of a zod object's enum members (the parameters a docs page fills with a first value). */
function enumParams(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, { def?: unknown; _zod?: { def: any } }> } | undefined)?.shape ?? {};
  const isEnum = (def: any): boolean => def?.type === "enum" || ((def?.type === "optional" || def?.type === "default") && isEnum(def.innerType?._zod?.def));
  return Object.entries(shape)
    .filter(([, s]) => isEnum(s._zod?.def))
    .map(([name]) => name);
}

test("every enum parameter has its documented example, so a docs page never fills in a value nobody chose", () => {
  const missing: string[] = [];
  for (const op of OPERATIONS) {
    for (const name of enumParams(op.query)) if (op.examples?.[name] === undefined && name !== "granularity" && name !== "include_club") missing.push(`${op.operationId} ${name}`);
  }
  // granularity and include_club: their first value is the default, the answer the example shows.
  expect(missing).toEqual([]);
});

test("each operation's answer to all its documented examples together holds data", () => {
  const empty: string[] = [];
  const notEmpty = (value: unknown) => (Array.isArray(value) ? value.length > 0 : value !== null && value !== undefined);
  for (const [operationId, answer] of Object.entries(examples as Record<string, any>)) {
    const data = answer?.data;
    if (data === undefined || data === null || typeof data !== "object") continue; // not an enveloped answer (probes, an export file, MCP)
    if (Array.isArray(data)) {
      if (data.length === 0) empty.push(operationId);
      continue;
    }
    // An object answer: its main list (prices, history, stores) is not empty.
    for (const field of ["prices", "history", "stores"]) if (field in data && !notEmpty(data[field])) empty.push(`${operationId}.${field}`);
  }
  expect(empty).toEqual([]);
  expect(Object.keys(examples).length).toBeGreaterThanOrEqual(20);
});
