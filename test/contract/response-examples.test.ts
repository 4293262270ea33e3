/**
 * The OpenAPI document's response examples (src/http/openapi/response-examples.json) are current:
 * regenerated from the embedded demo data (scale 1, the clock pinned on 22 Nov 2026) by the script
 * that wrote them, they are the same file. Run `npm run openapi:examples` after changing an answer
 * or the demo data. (The contract test validates them against the document's schemas.)
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

test("regenerating the response examples gives the committed file (`npm run openapi:examples`)", () => {
  const dir = mkdtempSync(join(tmpdir(), "mehir-examples-drift-"));
  try {
    const out = join(dir, "response-examples.json");
    const run = Bun.spawnSync([process.execPath, join(ROOT, "scripts/openapi-examples.ts"), out], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect(run.exitCode, run.stderr.toString().slice(-2000)).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(readFileSync(join(ROOT, "src/http/openapi/response-examples.json"), "utf8"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 600_000);
