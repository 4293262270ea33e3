/**
 * Writes the code generated from the OpenAPI document the app serves at /docs/json:
 * - test/contract/openapi.d.ts and clients/typescript/src/openapi.d.ts: the TypeScript types
 *   openapi-typescript generates (the same file; the client carries its own copy);
 * - clients/typescript/src/operations.ts and clients/python/mehir/_operations.py: the clients'
 *   operation tables (scripts/client-operations.ts).
 * The contract test and test/clients/generated.test.ts regenerate them and fail when they differ,
 * so run `npm run openapi:types` after changing an operation.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testApp } from "../test/helpers/app.ts";
import { clientOperations, pythonOperations, typescriptOperations } from "./client-operations.ts";

const root = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "mehir-openapi-"));
try {
  const { app } = testApp();
  const json = join(dir, "openapi.json");
  const text = await (await app.handle(new Request("http://localhost/docs/json"))).text();
  await Bun.write(json, text);
  const types = join(root, "test/contract/openapi.d.ts");
  const out = Bun.spawnSync([join(root, "node_modules/.bin/openapi-typescript"), json, "-o", types], { stdout: "inherit", stderr: "inherit" });
  process.exitCode = out.exitCode ?? 1;
  if (out.exitCode === 0) {
    copyFileSync(types, join(root, "clients/typescript/src/openapi.d.ts"));
    const operations = clientOperations(JSON.parse(text));
    writeFileSync(join(root, "clients/typescript/src/operations.ts"), typescriptOperations(operations));
    writeFileSync(join(root, "clients/python/mehir/_operations.py"), pythonOperations(operations));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit();
