/**
 * The contract test: the OpenAPI document served at /docs/json is the truth about the API.
 *
 * - Types generated from it by openapi-typescript are the ones committed beside this file
 *   (test/contract/openapi.d.ts; `npm run openapi:types` writes them), and the client calls in
 *   calls.ts type-check against them (tsc): a renamed parameter or a changed type fails here.
 * - The document lints clean with Redocly CLI (its recommended rules, redocly.yaml).
 * - Every operation is called through openapi-fetch with valid and invalid input, over the demo
 *   data (a small scale, through the real import path) with a daily export on disk; every
 *   answer's status, headers and body are validated against the document (ajv, 2020-12).
 * - Input the typed client cannot send is sent raw and validated the same way: a repeated
 *   parameter (400 naming it), a URL over 8 KiB (414 problem+json), on every operation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import createClient from "openapi-fetch";
import type { paths } from "./openapi.d.ts";
import { openDataDir, PRICES_FILE, type Databases } from "../../src/db/open.ts";
import { syncRegistry } from "../../src/db/sync-registry.ts";
import { loadRegistry } from "../../src/registry.ts";
import { ensureDemoData } from "../../src/demo/first-start.ts";
import { runExport } from "../../src/exports/run.ts";
import { EXPORTS_DIR, ExportStore } from "../../src/exports/store.ts";
import type { AlertService } from "../../src/alerts/alert-service.ts";
import { ManualTimers } from "../helpers/alerts/manual-timers.ts";
import { testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { callEveryOperation, type Keys } from "./calls.ts";
import { ContractValidator, pointer } from "./validate.ts";
import RESPONSE_EXAMPLES from "../../src/openapi/response-examples.json" with { type: "json" };

const ROOT = join(import.meta.dir, "../..");
const HERE = import.meta.dir;
const NOW = new Date("2026-11-22T08:00:00Z");
const BIN = (name: string) => join(ROOT, "node_modules/.bin", name);
// The linter's usage reports and update checks would reach for the internet: off.
const QUIET_ENV = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SDK_TELEMETRY: "off", DO_NOT_TRACK: "1", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_NOTIFICATIONS: "true", NO_UPDATE_NOTIFIER: "1" };

let dir: string;
let db: Databases;
let app: ReturnType<typeof testApp>["app"];
let documentText: string;
let keys: Keys;
let alerts: AlertService;

function run(cmd: string[]): { code: number; out: string } {
  const result = Bun.spawnSync(cmd, { cwd: ROOT, env: QUIET_ENV, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode ?? -1, out: `${result.stdout.toString()}\n${result.stderr.toString()}` };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mehir-contract-"));
  db = openDataDir(dir);
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  await ensureDemoData({ db: db.prices, registry, dataDir: dir, now: NOW, scale: 0.02, importer: "inline" });
  await runExport({ dbPath: join(dir, PRICES_FILE), exportsDir: join(dir, EXPORTS_DIR), keepDays: 30 }, NOW);
  const exports = new ExportStore(join(dir, EXPORTS_DIR));
  // Test events are "sent" here, never over the network.
  const { app: built, deps } = testApp({ db, env: { MEHIR_RATE_PRO: "100000", MEHIR_RATE_FREE: "100000", MEHIR_QUOTA_PRO: "1000000", MEHIR_WEBHOOK_ALLOW_LOOPBACK: "on" }, now: () => NOW, exports, timers: new ManualTimers(), alerts: { send: async () => ({ status: 200 }) } });
  alerts = deps.alerts;
  app = built;
  await deps.search!.rebuild(db.prices);
  const manifest = exports.list()[0]!;
  keys = {
    pro: newKey(deps, "pro", "live", { email: "pro@example.com" }).key,
    free: newKey(deps, "free", "live", { email: "free@example.com" }).key,
    publishable: newKey(deps, "free", "publishable", { email: "widget@example.com" }).key,
    exportDate: manifest.date,
    exportFile: manifest.files[0]!.name,
  };
  documentText = await (await app.handle(new Request("http://localhost/docs/json"))).text();
  writeFileSync(join(dir, "openapi.json"), documentText);
}, 300_000);

// Removing the demo files can take seconds on a busy machine.
afterAll(() => {
  alerts?.stop();
  db?.prices.close();
  db?.accounts.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("the OpenAPI document", () => {
  test("generates the committed client types (openapi-typescript); run `npm run openapi:types` after changing the API", () => {
    const out = join(dir, "openapi.d.ts");
    const generated = run([BIN("openapi-typescript"), join(dir, "openapi.json"), "-o", out]);
    expect(generated.code, generated.out).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(readFileSync(join(HERE, "openapi.d.ts"), "utf8"));
  }, 120_000);

  test("the client calls type-check against the generated types (tsc)", () => {
    const checked = run([BIN("tsc"), "--noEmit", "-p", join(HERE, "tsconfig.json")]);
    expect(checked.code, checked.out).toBe(0);
  }, 180_000);

  test("lints with zero errors (Redocly CLI, recommended rules)", () => {
    const linted = run([BIN("redocly"), "lint", join(dir, "openapi.json"), "--config", join(ROOT, "redocly.yaml"), "--format", "stylish"]);
    expect(linted.code, linted.out).toBe(0);
  }, 120_000);

  test("every JSON success answer has its example (src/openapi/response-examples.json), valid against its schema", () => {
    const doc = JSON.parse(documentText);
    const validator = new ContractValidator(doc);
    const withExample: string[] = [];
    const problems: string[] = [];
    for (const operation of validator.operations()) {
      const [method, schemaPath] = operation.split(" ") as [string, string];
      const op = validator.operation(method, schemaPath)!;
      const status = ["200", "201"].find((s) => op.responses[s]);
      const json = status ? op.responses[status].content?.["application/json"] : undefined;
      if (!json) continue;
      if (json.example === undefined) {
        problems.push(`${operation} (${op.operationId}): no example`);
        continue;
      }
      withExample.push(op.operationId);
      const error = validator.check(pointer("", "paths", schemaPath, method.toLowerCase(), "responses", status!, "content", "application/json", "schema"), json.example);
      if (error) problems.push(`${operation}: example: ${error}`);
    }
    expect(problems).toEqual([]);
    // Every example in the file is one of an operation (none left behind by a renamed one).
    expect(Object.keys(RESPONSE_EXAMPLES).sort()).toEqual(withExample.sort());
    expect(withExample.length).toBeGreaterThanOrEqual(18);
  });

  test("every operation, called with valid and invalid input, answers as documented: status, headers, body", async () => {
    const doc = JSON.parse(documentText);
    const validator = new ContractValidator(doc);
    const seen: { method: string; schemaPath: string; response: Response }[] = [];
    const api = createClient<paths>({ baseUrl: "http://localhost", fetch: (request: Request) => app.handle(request) });
    api.use({
      onResponse({ request, response, schemaPath }) {
        seen.push({ method: request.method, schemaPath, response: response.clone() });
      },
    });
    await callEveryOperation(api, keys);

    // Raw: what a typed client cannot send, on every operation of the document.
    for (const operation of validator.operations()) {
      const [method, schemaPath] = operation.split(" ") as [string, string];
      const path = schemaPath.replace(/\{[a-z_]+\}/g, "x");
      const long = await app.handle(new Request(`http://localhost${path}?pad=${"x".repeat(9000)}`, { method }));
      seen.push({ method, schemaPath, response: long });
      const op = validator.operation(method, schemaPath)!;
      const queryParam = (op.parameters ?? []).find((p: { in: string }) => p.in === "query");
      if (queryParam) {
        const repeated = await app.handle(
          new Request(`http://localhost${path}?${queryParam.name}=1&${queryParam.name}=2`, { method, headers: { "x-api-key": schemaPath === "/api/v1/widget/data" ? keys.publishable : keys.pro } }),
        );
        seen.push({ method, schemaPath, response: repeated.clone() });
        if (method === "GET" && !schemaPath.includes("{")) {
          const body = await repeated.json();
          expect(repeated.status, operation).toBe(400);
          expect(body.param, operation).toBe(queryParam.name);
        }
      }
    }

    const problems: string[] = [];
    for (const { method, schemaPath, response } of seen) problems.push(...(await validator.problems(method, schemaPath, response)));
    expect(problems).toEqual([]);

    // Every operation was called, and answered both a success and an error.
    const statuses = new Map<string, number[]>();
    for (const { method, schemaPath, response } of seen) statuses.set(`${method} ${schemaPath}`, [...(statuses.get(`${method} ${schemaPath}`) ?? []), response.status]);
    for (const operation of validator.operations()) {
      const got = statuses.get(operation) ?? [];
      expect(got.some((s) => s < 400), `${operation} answered a success (${got.join(", ")})`).toBe(true);
      expect(got.some((s) => s >= 400 && s < 500), `${operation} answered an error (${got.join(", ")})`).toBe(true);
    }
  }, 120_000);
});
