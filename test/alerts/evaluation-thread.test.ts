import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EvaluationThread } from "../../src/alerts/evaluation-thread.ts";
import { AlertEvaluator } from "../../src/alerts/evaluator.ts";
import type { EvaluationJob } from "../../src/alerts/evaluation-job.ts";
import { openDataDir } from "../../src/db/open.ts";
import { call } from "../helpers/alerts/call.ts";
import { testApp } from "../helpers/app.ts";
import { newKey } from "../helpers/keys.ts";
import { importStoreDay } from "../helpers/alerts/price-files.ts";

/**
 * A server on its data dir evaluates its alerts in one worker thread kept between passes
 * (evaluation-thread.ts): every import's pass goes to the same thread, the server's stop ends
 * it, and a thread that dies is replaced — the pass it was running is tried again at once. A stop
 * during a pass writes nothing more; the next start evaluates what it left, each event once.
 */
const BARCODE = "7290000066318";
const root = mkdtempSync(join(tmpdir(), "mehir-evaluation-thread-"));
const dataDir = join(root, "data");

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A server on the data dir, as `mehir serve` (the evaluation at normal priority: a busy machine would starve an idle one). */
const serve = () =>
  testApp({
    db: openDataDir(dataDir),
    env: { MEHIR_WEBHOOK_ALLOW_LOOPBACK: "on", MEHIR_RATE_PRO: "100000", MEHIR_DATA_DIR: dataDir, MEHIR_IMPORT_PRIORITY: "normal", MEHIR_EXPORTS: "off" },
    now: () => new Date(),
  });

const importDay = (day: number, agorot: number) => importStoreDay(root, dataDir, day, { [BARCODE]: agorot });

test("every pass of a server goes to one evaluation thread, which its stop ends", async () => {
  await importDay(20, 1290);
  const { app, deps, close } = serve();
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

/** A server on the data dir with a Pro key and one alert below `belowIls` (its baseline evaluated at creation). */
async function serverWithAlert(url: string, belowIls: string) {
  const server = serve();
  const key = newKey(server.deps, "pro", "live", { email: `${url.split("/").at(-1)}@example.com` }).key;
  const created = await call(server.app, "POST", "/api/v1/alerts/", key, { url, barcode: BARCODE, condition: { below_ils: belowIls } });
  expect(created.status).toBe(201);
  expect(created.body.data.last_evaluation.condition_met).toBe(false);
  return { ...server, key, id: created.body.data.id as string };
}

test("a stop during a pass writes nothing more; the next start evaluates the alert and queues its event once", async () => {
  const first = await serverWithAlert("http://127.0.0.1:9/stopped", "9.00");
  const version = first.deps.data.current.version + 1;
  await importDay(24, 850);
  // The new version is noticed (the pass is asked of the thread at once), and the server stops:
  // its alert service first (as close() does), the rest once the search index is rebuilt.
  expect(first.deps.data.refresh()).toBe(true);
  const evaluator = first.deps.alerts.evaluator;
  const running = evaluator.run();
  first.deps.alerts.stop();
  await running;
  expect(evaluator.threadId).toBeNull();
  await first.deps.search.settled();
  first.close();
  const db = openDataDir(dataDir);
  const stateVersion = () => (db.accounts.query("SELECT state_version AS v FROM alerts WHERE url = ?").get("http://127.0.0.1:9/stopped") as { v: number }).v;
  try {
    expect(stateVersion()).toBeLessThan(version);
    // The next start: the pass left behind is evaluated, the event queued once.
    const second = serve();
    try {
      await second.deps.alerts.evaluator.run();
      expect(stateVersion()).toBe(version);
      const alert = (await call(second.app, "GET", `/api/v1/alerts/${first.id}/`, first.key)).body.data;
      expect(alert.last_evaluation).toEqual({ data_version: version, effective_price_ils: "8.50", condition_met: true });
      expect((await call(second.app, "GET", `/api/v1/alerts/${first.id}/deliveries/`, first.key)).body.data).toHaveLength(1);
      // Evaluated again at the same version (another start): nothing more.
      await second.deps.alerts.evaluator.run();
      expect((await call(second.app, "GET", `/api/v1/alerts/${first.id}/deliveries/`, first.key)).body.data).toHaveLength(1);
    } finally {
      second.close();
    }
  } finally {
    db.prices.close();
    db.accounts.close();
  }
}, 30_000);

test("a thread dying during a pass: the pass is tried again at once on a new thread, its event queued once", async () => {
  const server = await serverWithAlert("http://127.0.0.1:9/dying", "8.00");
  // The server's own evaluator is stopped: this one, on a thread that dies at its first job, evaluates.
  server.deps.alerts.evaluator.stop();
  const marker = join(root, "died-once");
  const script = join(root, "dies-once-worker.ts");
  const job = JSON.stringify(join(import.meta.dir, "../../src/alerts/evaluation-job.ts"));
  writeFileSync(
    script,
    `import { existsSync, writeFileSync } from "node:fs";
import { runEvaluationJob } from ${job};
self.onmessage = (event) => {
  if (!existsSync(${JSON.stringify(marker)})) (writeFileSync(${JSON.stringify(marker)}, ""), process.exit(3));
  self.postMessage(runEvaluationJob(event.data));
};
`,
  );
  const warned: string[] = [];
  const log = { info: () => {}, warn: (msg: string) => void warned.push(msg) };
  let queued = 0;
  const evaluator = new AlertEvaluator({ app: server.deps, alerts: server.deps.alerts.alerts, clock: () => Date.now(), queued: () => void queued++, log, workerEntrypoint: script });
  try {
    const version = server.deps.data.current.version + 1;
    await importDay(25, 790);
    expect(server.deps.data.refresh()).toBe(true);
    await evaluator.run();
    expect(warned).toEqual(["alerts: evaluation thread ended"]);
    expect(evaluator.threadId).not.toBeNull();
    expect(queued).toBe(1);
    const alert = (await call(server.app, "GET", `/api/v1/alerts/${server.id}/`, server.key)).body.data;
    expect(alert.last_evaluation).toEqual({ data_version: version, effective_price_ils: "7.90", condition_met: true });
    expect((await call(server.app, "GET", `/api/v1/alerts/${server.id}/deliveries/`, server.key)).body.data).toHaveLength(1);
  } finally {
    evaluator.stop();
    server.close();
  }
  expect(evaluator.threadId).toBeNull();
}, 30_000);
