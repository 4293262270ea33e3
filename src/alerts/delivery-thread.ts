/**
 * Worker entrypoint: the webhook deliveries of a server (delivery-worker.ts) on their own thread
 * and accounts-database connection, so that signing, the HTTP client and the queue's bookkeeping
 * (about a millisecond of CPU per attempt, most of it node:http) never run between the serving
 * thread's requests (bench/alerts.ts). Normal CPU priority: an attempt's writes are single
 * statements, and a thread at idle priority could be preempted while holding the write lock
 * the serving thread's own writes wait on. Started by DeliveryThread; the compiled binary lists
 * this file as an extra entrypoint (scripts/build.ts).
 */
import { ACCOUNT_MIGRATIONS } from "../db/account-schema.ts";
import { openDatabase } from "../db/open.ts";
import { log } from "../lib/log.ts";
import { AlertStore } from "./alert-store.ts";
import { DeliveryStore } from "./delivery-store.ts";
import { DeliveryWorker } from "./delivery-worker.ts";
import { SecretBox } from "./secret-box.ts";
import { httpSender } from "./sender.ts";
import { realTimers } from "./timers.ts";

/** The thread's set-up: where the queue is, and how targets are checked. */
export interface DeliveryThreadStart {
  kind: "start";
  accountsPath: string;
  allowLoopback: boolean;
  timeoutMs?: number;
}

/** What the server asks of the thread; each `ref` is answered with `{ kind: "done", ref }`. */
export type DeliveryThreadRequest =
  | DeliveryThreadStart
  | { kind: "wake" }
  | { kind: "deliver-now"; id: number; ref: number }
  | { kind: "idle"; ref: number }
  | { kind: "stop"; ref: number };

export type DeliveryThreadReply = { kind: "done"; ref: number };

declare const self: Worker;

/** The first message sets the thread up; the others are served by the worker it made. */
self.onmessage = (event: MessageEvent<DeliveryThreadRequest>) => {
  const start = event.data;
  if (start.kind !== "start") return;
  const accounts = openDatabase(start.accountsPath, ACCOUNT_MIGRATIONS);
  const worker = new DeliveryWorker({
    alerts: new AlertStore(accounts),
    deliveries: new DeliveryStore(accounts),
    box: SecretBox.beside(start.accountsPath),
    send: httpSender({ allowLoopback: start.allowLoopback }),
    timers: realTimers,
    random: Math.random,
    timeoutMs: start.timeoutMs,
    log,
  });
  self.onmessage = async (next: MessageEvent<DeliveryThreadRequest>) => {
    const request = next.data;
    const done = (ref: number) => self.postMessage({ kind: "done", ref } satisfies DeliveryThreadReply);
    switch (request.kind) {
      case "wake":
        return worker.wake();
      case "deliver-now":
        await worker.deliverNow(request.id);
        return done(request.ref);
      case "idle":
        await worker.idle();
        return done(request.ref);
      case "stop":
        worker.stop();
        accounts.close();
        return done(request.ref);
    }
  };
};
