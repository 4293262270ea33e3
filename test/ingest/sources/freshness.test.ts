import { afterAll, describe, expect, test } from "bun:test";
import { testApp } from "../../helpers/app.ts";
import { openMemory } from "../../../src/db/open.ts";
import { syncRegistry } from "../../../src/db/sync-registry.ts";
import { Collector } from "../../../src/ingest/sources/collection.ts";
import { chainFreshness } from "../../../src/ingest/sources/freshness.ts";
import type { FetchReport } from "../../../src/ingest/sources/fetch-chains.ts";
import { loadRegistry } from "../../../src/registry.ts";

/** Parses Prometheus text into `name{labels}` → value. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

const unix = (iso: string) => Date.parse(iso) / 1000;

describe("metrics per chain of the collection", () => {
  // Clock pinned by testApp: 2026-11-22T10:00:00Z = 12:00 Israel time.
  const ctx = testApp();
  ctx.db.prices.run(
    `INSERT INTO chain_health (chain_slug, last_attempt_at, last_success_at, last_data_at, fetch_status, status_reason, newest_file_at, next_run_at) VALUES
       ('shufersal', '2026-11-22T11:30:00+02:00', '2026-11-22T11:30:00+02:00', '2026-11-22T03:00:00+02:00', 'ok', NULL, '2026-11-22T03:00:00+02:00', '2026-11-22T12:00:00+02:00'),
       ('super-pharm', '2026-11-22T11:30:00+02:00', '2026-11-19T11:30:00+02:00', '2026-11-19T07:05:00+02:00', 'blocked', 'the portal refused this address: HTTP 247', '2026-11-19T07:05:00+02:00', '2026-11-22T15:30:00+02:00'),
       ('victory', '2026-11-22T11:30:00+02:00', NULL, NULL, 'failing', 'HTTP 500', NULL, '2026-11-22T12:30:00+02:00')`,
  );

  test("status per chain, newest file and its age, last attempt and success, next run, stale", async () => {
    const res = ctx.deps.metricsEndpoint!(new Request("http://localhost/metrics"));
    const text = await res.text();
    const values = parse(text);
    expect(values.get('mehir_chain_fetch_status{chain="shufersal",status="ok"}')).toBe(1);
    expect(values.get('mehir_chain_fetch_status{chain="shufersal",status="blocked"}')).toBe(0);
    expect(values.get('mehir_chain_fetch_status{chain="super-pharm",status="blocked"}')).toBe(1);
    expect(values.get('mehir_chain_fetch_status{chain="super-pharm",status="ok"}')).toBe(0);
    expect(values.get('mehir_chain_fetch_status{chain="victory",status="failing"}')).toBe(1);
    // 12:00 Israel: Shufersal's newest file is 9 h old, Super-Pharm's 3 days and 4 h 55 min.
    expect(values.get('mehir_chain_newest_file_age_seconds{chain="shufersal"}')).toBe(9 * 3600);
    expect(values.get('mehir_chain_newest_file_age_seconds{chain="super-pharm"}')).toBe(3 * 86_400 + 4 * 3600 + 55 * 60);
    expect(values.has('mehir_chain_newest_file_age_seconds{chain="victory"}')).toBe(false);
    expect(values.get('mehir_chain_newest_file_timestamp_seconds{chain="shufersal"}')).toBe(unix("2026-11-22T03:00:00+02:00"));
    expect(values.get('mehir_chain_last_success_timestamp_seconds{chain="super-pharm"}')).toBe(unix("2026-11-19T11:30:00+02:00"));
    expect(values.has('mehir_chain_last_success_timestamp_seconds{chain="victory"}')).toBe(false);
    expect(values.get('mehir_chain_last_attempt_timestamp_seconds{chain="victory"}')).toBe(unix("2026-11-22T11:30:00+02:00"));
    expect(values.get('mehir_chain_next_run_timestamp_seconds{chain="super-pharm"}')).toBe(unix("2026-11-22T15:30:00+02:00"));
    expect(values.get('mehir_chain_stale{chain="shufersal"}')).toBe(0);
    expect(values.get('mehir_chain_stale{chain="super-pharm"}')).toBe(1);
    for (const name of ["mehir_chain_fetch_status", "mehir_chain_newest_file_age_seconds", "mehir_chain_last_success_timestamp_seconds", "mehir_chain_stale"]) expect(text).toContain(`# TYPE ${name} gauge`);
  });

  test("chainFreshness: the portal's side wins, then stale / ok / no_data", () => {
    const rows = chainFreshness(ctx.db.prices, ctx.deps.registry, new Date("2026-11-22T10:00:00Z"));
    const of = (slug: string) => rows.find((r) => r.chain === slug)!;
    expect([of("shufersal").status, of("shufersal").status_reason]).toEqual(["ok", null]);
    expect([of("super-pharm").status, of("super-pharm").status_reason]).toEqual(["blocked", "the portal refused this address: HTTP 247"]);
    expect(of("victory").status).toBe("failing");
    expect(of("rami-levy").status).toBe("no_data");
    // Every active chain of the registry is listed, sorted.
    expect(rows.map((r) => r.chain)).toEqual([...rows.map((r) => r.chain)].sort());
    expect(rows.some((r) => r.chain === "quik")).toBe(false);
  });
});

describe("the stale warning", () => {
  const db = openMemory();
  afterAll(() => {
    db.prices.close();
    db.accounts.close();
  });
  const registry = loadRegistry();
  syncRegistry(db.prices, registry);
  let clock = new Date("2026-11-22T05:30:00+02:00");
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  /** The fetch the loop runs: imports shufersal's data of `dataAt` (null: nothing new). */
  let dataAt: string | null = "2026-11-22T03:00:00+02:00";
  const collector = new Collector({
    chains: ["shufersal"],
    at: "05:30",
    everyMs: 30 * 60_000,
    backfillDays: 2,
    db: db.prices,
    now: () => clock,
    log: (level, msg, fields) => lines.push({ level, msg, fields }),
    fetch: async (plan) => {
      if (dataAt) db.prices.run("INSERT INTO chain_health (chain_slug, last_data_at) VALUES ('shufersal', ?) ON CONFLICT (chain_slug) DO UPDATE SET last_data_at = excluded.last_data_at", [dataAt]);
      dataAt = null;
      return { date: plan.date, earliest: plan.date, startedAt: "", finishedAt: "", files: [], chains: [] } as FetchReport;
    },
  });
  const staleLines = () => lines.filter((l) => l.msg === "fetch: chain is stale");
  const warnedAt = () => (db.prices.query("SELECT stale_warned_at FROM chain_health WHERE chain_slug = 'shufersal'").get() as { stale_warned_at: string | null }).stale_warned_at;

  test("one warning once the newest data passes 36 h, none while it stays stale, again after it was fresh", async () => {
    await collector.collect();
    expect(staleLines()).toHaveLength(0);
    // 35 h after the data: still fresh.
    clock = new Date("2026-11-23T14:00:00+02:00");
    await collector.collect();
    expect(staleLines()).toHaveLength(0);
    // 36 h and a minute: one warning, remembered.
    clock = new Date("2026-11-23T15:01:00+02:00");
    await collector.collect();
    expect(staleLines()).toHaveLength(1);
    expect(staleLines()[0]!).toMatchObject({ level: "warn", fields: { chain: "shufersal", newest_data_at: "2026-11-22T03:00:00+02:00", age_hours: 36 } });
    expect(warnedAt()).toBe("2026-11-23T15:01:00+02:00");
    for (const at of ["2026-11-23T16:00:00+02:00", "2026-11-24T09:00:00+02:00"]) {
      clock = new Date(at);
      await collector.collect();
    }
    expect(staleLines()).toHaveLength(1);
    // New data comes in: fresh again, the mark cleared.
    clock = new Date("2026-11-24T10:00:00+02:00");
    dataAt = "2026-11-24T09:40:00+02:00";
    // The chain is backed off or due; the check runs on every collect either way.
    while (dataAt !== null) {
      await collector.collect();
      clock = new Date(clock.getTime() + 30 * 60_000);
    }
    expect(warnedAt()).toBeNull();
    expect(lines.some((l) => l.msg === "fetch: chain fresh again")).toBe(true);
    // Stale again 36 h later: warned again.
    clock = new Date("2026-11-25T22:00:00+02:00");
    await collector.collect();
    expect(staleLines()).toHaveLength(2);
  });
});
