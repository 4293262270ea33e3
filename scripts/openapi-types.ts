/**
 * Writes test/contract/openapi.d.ts: the TypeScript types openapi-typescript generates from the
 * OpenAPI document the app serves at /docs/json. The contract test regenerates them and fails
 * when they differ, so run `npm run openapi:types` after changing an operation.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testApp } from "../test/helpers/app.ts";

const root = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "mehir-openapi-"));
try {
  const { app } = testApp();
  const json = join(dir, "openapi.json");
  await Bun.write(json, await (await app.handle(new Request("http://localhost/docs/json"))).text());
  const out = Bun.spawnSync([join(root, "node_modules/.bin/openapi-typescript"), json, "-o", join(root, "test/contract/openapi.d.ts")], { stdout: "inherit", stderr: "inherit" });
  process.exitCode = out.exitCode ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit();
