import type { ColdBudget } from "./cold-budget.ts";
import { log } from "../lib/log.ts";

/**
 * Recomputes answers in the background, within the cold budget: each turn runs queued jobs for
 * at most `sliceMs` and only while the budget allows, then lets requests through. A key queued
 * twice runs once. Jobs that throw are logged and dropped (the next request computes it).
 *
 * One per process, spending its cold budget (createServices builds it).
 *
 * @example revalidator.enqueue("prices:729…", () => recompute()); await revalidator.idle()
 */
export class Revalidator {
  private readonly jobs = new Map<string, () => void>();
  private scheduled = false;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly budget: ColdBudget,
    private readonly sliceMs = 4,
    private readonly pauseMs = 5,
  ) {}

  get size(): number {
    return this.jobs.size;
  }

  enqueue(key: string, job: () => void): void {
    if (!this.jobs.has(key)) this.jobs.set(key, job);
    this.schedule(this.pauseMs);
  }

  /** Resolves once the queue is empty. */
  idle(): Promise<void> {
    if (this.jobs.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private schedule(ms: number): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => this.turn(), ms);
  }

  private turn(): void {
    this.scheduled = false;
    const started = performance.now();
    while (this.jobs.size > 0 && performance.now() - started < this.sliceMs && this.budget.available()) {
      const [key, job] = this.jobs.entries().next().value as [string, () => void];
      this.jobs.delete(key);
      try {
        job();
      } catch (error) {
        log.warn("revalidation failed", { key, error: String(error) });
      }
    }
    if (this.jobs.size > 0) this.schedule(this.pauseMs);
    else for (const resolve of this.waiters.splice(0)) resolve();
  }
}
