/**
 * The clients' generated files are current with the OpenAPI document the app serves (as the
 * contract test holds test/contract/openapi.d.ts to it): `npm run openapi:types` writes them all.
 * - clients/typescript/src/openapi.d.ts is the contract's openapi-typescript output (which
 *   test/contract/contract.test.ts regenerates and compares);
 * - the operation tables of both clients are what scripts/client-operations.ts makes of the
 *   document, so each client has a method for every operation;
 * - the TypeScript client type-checks on its own, with the DOM's library and no Bun or Node types
 *   (it needs nothing but fetch and Web Crypto).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clientOperations, pythonOperations, snakeCase, typescriptOperations, type OpenApiDocument } from "../../scripts/client-operations.ts";
import { createClient } from "../../clients/typescript/src/index.ts";
import { testApp } from "../helpers/app.ts";

const ROOT = join(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const RUN = "run `npm run openapi:types` after changing the API";

async function servedDocument(): Promise<OpenApiDocument> {
  const { app } = testApp();
  return (await (await app.handle(new Request("http://localhost/docs/json"))).json()) as OpenApiDocument;
}

describe("the clients' generated files", () => {
  test(`are current (${RUN})`, async () => {
    const operations = clientOperations(await servedDocument());
    expect(read("clients/typescript/src/openapi.d.ts")).toBe(read("test/contract/openapi.d.ts"));
    expect(read("clients/typescript/src/operations.ts")).toBe(typescriptOperations(operations));
    expect(read("clients/python/mehir/_operations.py")).toBe(pythonOperations(operations));
  });

  test("give both clients a method for every operation, and an …All / …_all iterator for every paged one", async () => {
    const document = await servedDocument();
    const operations = clientOperations(document);
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(operations.map((op) => op.operationId).sort()).toEqual(ids.sort());
    expect(ids.length).toBeGreaterThanOrEqual(24);
    const client = createClient({ baseUrl: "http://127.0.0.1:1" }) as unknown as Record<string, unknown>;
    const python = read("clients/python/mehir/_operations.py");
    for (const op of operations) {
      expect({ id: op.operationId, typescript: typeof client[op.operationId], python: python.includes(`    def ${snakeCase(op.operationId)}(self`) }).toEqual({ id: op.operationId, typescript: "function", python: true });
      if (op.paged) expect({ id: op.operationId, typescript: typeof client[`${op.operationId}All`], python: python.includes(`    def ${snakeCase(op.operationId)}_all(self`) }).toEqual({ id: op.operationId, typescript: "function", python: true });
    }
    expect(operations.filter((op) => op.paged).map((op) => op.operationId)).toEqual(["searchProducts", "getChainCatalog", "listStores", "getPromotionsFeed", "listAlerts", "listAlertDeliveries"]);
  });

  test("the TypeScript client type-checks on its own (DOM library only: fetch and Web Crypto)", () => {
    const checked = Bun.spawnSync([join(ROOT, "node_modules/.bin/tsc"), "-p", join(ROOT, "clients/typescript")], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(checked.exitCode, `${checked.stdout}\n${checked.stderr}`).toBe(0);
  }, 120_000);
});
