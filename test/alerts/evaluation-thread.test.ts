import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EvaluationThread } from "../../src/alerts/evaluation-thread.ts";
import type { EvaluationJob } from "../../src/alerts/evaluation-job.ts";
import { openDataDir } from "../../src/db/open.ts";
import { importPaths } from "../../src/ingest/import.ts";
import { loadRegistry } from "../../src/registry.ts";
import { call } from "./call.ts";
import { testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { writePriceFull } from "./price-files.ts";

/**
 * A server on its data dir evaluates its alerts in one worker thread kept between passes
 * (evaluation-thread.ts): every import's pass goes to the same thread, the server's stop ends
 * it, and a thread that dies is replaced at the next pass.
 */
const BARCODE = "7290000066318";
const root = mkdtempSync(join(tmpdir(), "mehir-evaluation-thread-"));
const dataDir = join(root, "data");

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function importDay(day: number, agorot: number) {
  const dir = join(root, `day${day}`);
  writePriceFull(dir, day, "001", { [BARCODE]: agorot });
  const db = openDataDir(dataDir);
  try {
    expect((await importPaths({ db: db.prices, registry: loadRegistry(), paths: [dir], origin: "cli", source: "live" })).status).not.toBe("failed");
  } finally {
    db.prices.close();
    db.accounts.close();
  }
}

test("every pass of a server goes to one evaluation thread, which its stop ends", async () => {
  await importDay(20, 1290);
  const { app, deps, close } = testApp({ db: openDataDir(dataDir), env: { MEHIR_WEBHOOK_ALLOW_LOOPBACK: "on", MEHIR_RATE_PRO: "100000", MEHIR_DATA_DIR: dataDir }, now: () => new Date() });
  const evaluator = deps.alerts.evaluator;
  let stopped = false;
  try {
    const key = newKey(deps, "pro", "live", { email: "alerts@example.com" }).key;
    const created = await call(app, "POST", "/api/v1/alerts/", key, { url: "http://127.0.0.1:9/hook", barcode: BARCODE, condition: { below_ils: "10.00" } });
    expect(created.status).toBe(201);
    const id: string = created.body.data.id;
    // Nothing behind the served version yet: no thread.
    await evaluator.run();
    expect(evaluator.threadId).toBeNull();

    const evaluatedAt = async (day: number, agorot: number) => {
      await importDay(day, agorot);
      expect(deps.data.refresh()).toBe(true);
      await evaluator.run();
      return (await call(app, "GET", `/api/v1/alerts/${id}/`, key)).body.data.last_evaluation;
    };
    expect(await evaluatedAt(21, 990)).toEqual({ data_version: 2, effective_price_ils: "9.90", condition_met: true });
    const thread = evaluator.threadId;
    expect(thread).not.toBeNull();
    expect(await evaluatedAt(22, 1190)).toEqual({ data_version: 3, effective_price_ils: "11.90", condition_met: false });
    expect(await evaluatedAt(23, 950)).toEqual({ data_version: 4, effective_price_ils: "9.50", condition_met: true });
    expect(evaluator.threadId).toBe(thread);

    close();
    stopped = true;
    expect(evaluator.threadId).toBeNull();
  } finally {
    if (!stopped) close();
  }
}, 30_000);

test("an evaluation thread that dies is logged, its job answered null, and the next job starts a new one", async () => {
  // A worker that exits at its first message, as a crash would end it.
  const script = join(root, "dying-worker.ts");
  writeFileSync(script, "self.onmessage = () => process.exit(3);\n");
  const warned: string[] = [];
  const thread = new EvaluationThread({ warn: (msg) => void warned.push(msg) }, script);
  const job = { stop: new SharedArrayBuffer(4) } as EvaluationJob;
  try {
    expect(await thread.evaluate(job)).toBeNull();
    expect(warned).toEqual(["alerts: evaluation thread ended"]);
    expect(thread.threadId).toBeNull();
    expect(await thread.evaluate(job)).toBeNull();
    expect(warned).toEqual(["alerts: evaluation thread ended", "alerts: evaluation thread ended"]);
  } finally {
    thread.close();
  }
  expect(await thread.evaluate(job)).toBeNull();
  expect(warned).toHaveLength(2);
}, 20_000);
