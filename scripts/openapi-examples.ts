/**
 * Writes src/openapi/response-examples.json: for every operation with a JSON success answer,
 * a real answer of the embedded demo data (scale 1, as `npm start` serves it, the clock pinned on
 * 22 Nov 2026), called with the operation's documented parameter and body examples. The document
 * (document.ts) shows them as the success responses' examples. Run `npm run openapi:examples`
 * after changing an answer's shape or the demo data; the contract test validates every example
 * against its schema, the demo identity test checks their identifiers exist.
 *
 * Pages are asked with `limit=3`, so `meta.total` and `meta.next_cursor` are as served; longer
 * nested arrays (prices per chain, a basket's stores) are cut to 3 items. Values that differ per
 * run (request and alert ids, the alert's secret) are replaced by fixed ones.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.ts";
import { createServices, type Services } from "../src/services.ts";
import { loadSettings } from "../src/config.ts";
import { openDataDir, PRICES_FILE } from "../src/db/open.ts";
import { syncRegistry } from "../src/db/sync-registry.ts";
import { DataState } from "../src/data/data-state.ts";
import { loadRegistry } from "../src/registry.ts";
import { ensureDemoData } from "../src/demo/first-start.ts";
import { runExport } from "../src/exports/run.ts";
import { EXPORTS_DIR, ExportStore } from "../src/exports/store.ts";
import { createAccount } from "../src/accounts/accounts.ts";
import { createKey } from "../src/accounts/keys.ts";
import { OPERATIONS } from "../src/modules/index.ts";
import type { Operation } from "../src/openapi/operation.ts";
import { ManualTimers } from "../test/helpers/alerts/manual-timers.ts";

// The file to write: the committed one, or another (the drift test compares the two).
const OUT = process.argv[2] ?? join(import.meta.dir, "../src/openapi/response-examples.json");
// A data dir to work in (removed at the end), already holding the demo as generated below (the
// drift test passes a copy of the one it shares with other tests); a new temp dir otherwise.
const GIVEN_DIR = process.argv[3];
const NOW = new Date("2026-11-22T08:00:00Z");
const MAX_ITEMS = 3;
// Creating an alert resolves its URL's host: the documented one would be a DNS query, so the
// alert is made with a loopback URL (allowed here) and the documented URL put back in the examples.
const LOOPBACK_HOOK = "https://127.0.0.1/hook";
// Parameter examples that answer an empty page together (the stores near Tel Aviv in Haifa, a
// chain's promotions on milk): these operations' examples use only the ones listed.
const ONLY: Record<string, string[]> = { listStores: ["chain_id", "city"], getPromotionsFeed: ["chain_id"] };
// Random per run: replaced by fixed values of the same form.
const SECRET = "whsec_3xAmPLe0nLy0nLy0nLy0nLy0nLy3xAm";
const FIXED: Record<string, string> = { secret: SECRET, secret_last4: SECRET.slice(-4) };

/** Arrays cut to MAX_ITEMS; per-run values fixed. */
function tidy(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((v) => tidy(v));
  if (value === null || typeof value !== "object") {
    return typeof value === "string" && key in FIXED ? FIXED[key] : value;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tidy(v, k)]));
}

function hasJsonSuccess(op: Operation): boolean {
  return op.success.schema !== undefined || op.success.content?.["application/json"] !== undefined;
}

const dir = GIVEN_DIR ?? mkdtempSync(join(tmpdir(), "mehir-openapi-examples-"));
try {
  const db = openDataDir(dir);
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  await ensureDemoData({ db: db.prices, registry, dataDir: dir, now: NOW, importer: "inline" });
  await runExport({ dbPath: join(dir, PRICES_FILE), exportsDir: join(dir, EXPORTS_DIR), keepDays: 30 }, NOW);
  const deps = createServices(loadSettings({ MEHIR_RATE_PRO: "100000", MEHIR_WEBHOOK_ALLOW_LOOPBACK: "on" }), db, { registry, data: new DataState(db.prices), now: () => NOW,
    exports: new ExportStore(join(dir, EXPORTS_DIR)),
    // Test events are "sent" here, never over the network.
    alerts: { timers: new ManualTimers(NOW.getTime()), send: async () => ({ status: 200 }), random: () => 0.5 },
  });

  const app = createApp(deps);
  await deps.search!.rebuild(db.prices);
  const account = (email: string, kind: "live" | "publishable") =>
    createKey(db.accounts, { accountId: createAccount(db.accounts, { email, plan: "pro" }, NOW).id, kind }, NOW).key;
  const secret = account("docs@example.com", "live");
  const publishable = account("widget@example.com", "publishable");

  let alertId = "";
  const examples: Record<string, unknown> = {};
  // An alert is made, tested (a delivery to list), and deleted last.
  const LATER = ["listAlertDeliveries", "deleteAlert"];
  const order = [...OPERATIONS].sort((a, b) => LATER.indexOf(a.operationId) - LATER.indexOf(b.operationId));
  for (const op of order) {
    if (!hasJsonSuccess(op)) continue;
    const only = ONLY[op.operationId];
    const given = Object.fromEntries(Object.entries(op.examples ?? {}).filter(([name]) => !only || only.includes(name)));
    if (op.path.includes(":id") && op.path.startsWith("/api/v1/alerts")) given.id = alertId;
    if (op.operationId === "getExportFile") given.file = "manifest.json";
    let path: string = op.path;
    for (const name of Object.keys(op.params?.shape ?? {})) path = path.replace(`:${name}`, encodeURIComponent(given[name] ?? ""));
    const query = new URLSearchParams();
    for (const name of Object.keys(op.query?.shape ?? {})) if (given[name] !== undefined) query.set(name, given[name]);
    if (op.query?.shape.limit && !query.has("limit")) query.set("limit", String(MAX_ITEMS));
    const headers: Record<string, string> = { "x-api-key": secret };
    if (op.path === "/api/v1/widget/data") headers["x-api-key"] = publishable;
    if (op.path === "/mcp") headers.accept = "application/json, text/event-stream";
    let body: string | undefined;
    if (op.body) {
      headers["content-type"] = "application/json";
      const example = op.body.example as Record<string, unknown>;
      body = JSON.stringify(example.url ? { ...example, url: LOOPBACK_HOOK } : example);
    }
    const url = `http://localhost${path}${query.size ? `?${query}` : ""}`;
    const response = await app.handle(new Request(url, { method: op.method.toUpperCase(), headers, body }));
    const text = await response.text();
    if (response.status !== (op.success.status ?? 200)) throw new Error(`${op.operationId}: ${op.method} ${url} answered ${response.status}: ${text.slice(0, 500)}`);
    const answer = JSON.parse(text);
    if (op.operationId === "createAlert") alertId = answer.data.id;
    examples[op.operationId] = answer;
  }
  const documentedUrl = (OPERATIONS.find((o) => o.operationId === "createAlert")!.body!.example as { url: string }).url;
  const text = JSON.stringify(tidy(examples), null, 2)
    .replaceAll(LOOPBACK_HOOK, documentedUrl)
    .replaceAll(alertId, "alt_4kZr8pQw2mXv7nB3cL9d")
    .replace(/evt_[A-Za-z0-9]{24}/g, "evt_7Hq2Lm9Xc4Vb8Nz1Kd6Fw3Ps")
    .replace(/req_[0-9a-f]{32}/g, "req_3f9c1a2b7d4e5f600000000000000001");
  await Bun.write(OUT, `${text}\n`);
  deps.alerts.stop();
  db.prices.close();
  db.accounts.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit();
