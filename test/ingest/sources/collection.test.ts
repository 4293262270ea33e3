import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openDataDir, type Databases } from "../../../src/db/open.ts";
import { syncRegistry } from "../../../src/db/sync-registry.ts";
import { Collector } from "../../../src/ingest/sources/collection.ts";
import { fetchAndImport } from "../../../src/ingest/sources/fetch-and-import.ts";
import type { FetchReport } from "../../../src/ingest/sources/fetch-chains.ts";
import type { SourcesOverride } from "../../../src/ingest/sources/overrides.ts";
import { FAST_HTTP, bytesResponse, htmlResponse, jsonResponse, priceFullGz, registryOf, startFakePortal, tempDir, type FakePortal } from "../../helpers/ingest/fake-portal.ts";

// The collection loop over two days, the clock under the test's control: runs every 30 min
// from 00:00 (MEHIR_FETCH_AT), loopback portals in their families' shapes publishing at the
// real times seen in 2025–2026. Every file must be imported within one interval of its
// publication (also the day before's late file), once.

const EVERY = 30 * 60_000;
const israel = (day: string, hhmm: string) => new Date(`${day}T${hhmm}:00+02:00`);
const D1 = "2026-11-22";
const D2 = "2026-11-23";
const stamp = (d: Date) => d.toLocaleString("sv", { timeZone: "Asia/Jerusalem" }).replace(/\D/g, "").slice(0, 12);

let clock = israel(D1, "00:00");

/** A file a portal publishes at `at`. */
interface Publication {
  name: string;
  at: Date;
  bytes: Uint8Array;
}
const publish = (code: string, store: string, at: Date): Publication => ({ name: `PriceFull${code}-${store.padStart(3, "0")}-${stamp(at)}.gz`, at, bytes: priceFullGz(code, store) });
const visible = (files: Publication[]) => files.filter((f) => f.at.getTime() <= clock.getTime());

const servers: FakePortal[] = [];
/**
 * Meshnat-style JSON listing of everything still up (not filtered by day); a file of
 * `notFoundFirst` answers 404 that many times although listed (Carrefour under load).
 */
function jsonPortal(files: Publication[], notFoundFirst: Record<string, number> = {}): FakePortal {
  const portal = startFakePortal((_req, url) => {
    if (url.pathname === "/") return jsonResponse(visible(files).map((f) => ({ name: f.name, url: `/f/${f.name}` })));
    const file = visible(files).find((f) => `/f/${f.name}` === url.pathname);
    if (file && (notFoundFirst[file.name] ?? 0) > 0) {
      notFoundFirst[file.name]!--;
      return htmlResponse("not found", 404);
    }
    return file ? bytesResponse(file.bytes) : htmlResponse("not found", 404);
  });
  servers.push(portal);
  return portal;
}
/** Super-Pharm's mvc-grid, filtered by `Date-equals` (dd/MM/yyyy), link → JSON {href} → file. */
function superPharmPortal(files: Publication[]): FakePortal {
  const dmy = (d: Date) => stamp(d).replace(/^(\d{4})(\d{2})(\d{2}).*/, "$3/$2/$1");
  const portal = startFakePortal((_req, url) => {
    if (url.pathname === "/") {
      const rows = url.searchParams.get("Category-equals") !== "PriceFull" || url.searchParams.get("page") !== "1" ? [] : visible(files).filter((f) => dmy(f.at) === url.searchParams.get("Date-equals"));
      const tr = rows.map((f, i) => `<tr><td>${i + 1}</td><td>${f.name}</td><td>${dmy(f.at)} 07:05</td><td>PriceFull</td><td>1</td><td><a href="/Download/${f.name}?bucketName=sp">הורדה</a></td></tr>`);
      return htmlResponse(`<div class="mvc-grid" data-total-rows="${rows.length}"><table><tbody>${tr.join("")}</tbody></table></div>`);
    }
    if (url.pathname.startsWith("/Download/")) return jsonResponse({ href: `/files/${url.pathname.slice(10)}` });
    const file = visible(files).find((f) => `/files/${f.name}` === url.pathname);
    return file ? bytesResponse(file.bytes) : htmlResponse("not found", 404);
  });
  servers.push(portal);
  return portal;
}

const CODES = { early: "7290000000010", night: "7290000000027", late: "7290000000034", pharm: "7290172900007", flaky: "7290055700007" };
const publications = {
  // Cerberus-like: 00:10 every day.
  early: [publish(CODES.early, "1", israel(D1, "00:10")), publish(CODES.early, "1", israel(D2, "00:10"))],
  // Shufersal-like 03:00, and a store published at 23:50, after the day's last run.
  night: [publish(CODES.night, "1", israel(D1, "03:00")), publish(CODES.night, "2", israel(D1, "23:50")), publish(CODES.night, "1", israel(D2, "03:00"))],
  // Netiv-like: skips a day, then publishes at 16:59.
  late: [publish(CODES.late, "1", israel(D2, "16:59"))],
  // Super-Pharm: 07:05, listed by day.
  pharm: [publish(CODES.pharm, "1", israel(D1, "07:05")), publish(CODES.pharm, "1", israel(D2, "07:05"))],
  // Carrefour-like: listed files answering 404 twice (retried within the run), and one answering
  // 404 more often than a run retries (left for the next run).
  // A store's day is complete only when each of its stores has published (store 2 at 10:00 on day 2).
  flaky: [publish(CODES.flaky, "1", israel(D1, "05:00")), publish(CODES.flaky, "2", israel(D1, "05:00")), publish(CODES.flaky, "1", israel(D2, "05:00")), publish(CODES.flaky, "2", israel(D2, "10:00"))],
};
const NOT_FOUND_FIRST = { [publications.flaky[0]!.name]: 2, [publications.flaky[3]!.name]: 5 };

const registry = registryOf(
  { slug: "early", chain_codes: [CODES.early], portal: { family: "meshnatyosef", base_url: "http://127.0.0.1:1" } },
  { slug: "night", chain_codes: [CODES.night], portal: { family: "meshnatyosef", base_url: "http://127.0.0.1:1" } },
  { slug: "late", chain_codes: [CODES.late], portal: { family: "meshnatyosef", base_url: "http://127.0.0.1:1" } },
  { slug: "pharm", chain_codes: [CODES.pharm], portal: { family: "superpharm", base_url: "http://127.0.0.1:1" } },
  { slug: "flaky", chain_codes: [CODES.flaky], portal: { family: "meshnatyosef", base_url: "http://127.0.0.1:1" } },
);
const portals = { early: jsonPortal(publications.early), night: jsonPortal(publications.night), late: jsonPortal(publications.late), pharm: superPharmPortal(publications.pharm), flaky: jsonPortal(publications.flaky, { ...NOT_FOUND_FIRST }) };
const override: SourcesOverride = Object.fromEntries(Object.entries(portals).map(([slug, p]) => [slug, { base_url: p.url, fallback_url: null }]));

let dataDir: string;
let db: Databases;
/** Every run: its time and its report (null when no chain was due). */
const runs: { at: Date; report: FetchReport | null; imported: number }[] = [];

beforeAll(async () => {
  dataDir = tempDir();
  db = openDataDir(dataDir);
  syncRegistry(db.prices, registry);
  let imported = 0;
  const collector = new Collector({
    chains: registry.chains.map((c) => c.slug),
    at: "00:00",
    everyMs: EVERY,
    backfillDays: 2,
    db: db.prices,
    now: () => clock,
    fetch: async (plan) => {
      const result = await fetchAndImport({ db: db.prices, registry, dataDir, chains: plan.chains, date: plan.date, backfillDays: 2, listEarlierDays: plan.listEarlierDays, sourcesOverride: override, http: FAST_HTTP, now: () => clock, importPriority: "normal", log: () => {} });
      imported = result.import?.totals.files ?? 0;
      return result.fetch;
    },
  });
  for (let t = israel(D1, "00:00").getTime(); t < israel(D2, "23:59").getTime(); t += EVERY) {
    clock = new Date(t);
    imported = 0;
    const report = await collector.collect();
    runs.push({ at: clock, report, imported });
  }
}, 240_000);

afterAll(() => {
  for (const s of servers) s.stop();
  db?.prices.close();
  db?.accounts.close();
});

/** The run that downloaded `name`, and how many runs did. */
function downloadsOf(name: string) {
  return runs.filter((r) => r.report?.chains.some((c) => c.downloaded.some((d) => d.fileName === name)));
}

describe("collection loop over two days", () => {
  test("every published file is downloaded once, within one interval of its publication", () => {
    for (const file of Object.values(publications).flat()) {
      const got = downloadsOf(file.name);
      expect({ file: file.name, runs: got.length }).toEqual({ file: file.name, runs: 1 });
      const delay = got[0]!.at.getTime() - file.at.getTime();
      expect({ file: file.name, late: delay >= 0 && delay <= EVERY }).toEqual({ file: file.name, late: true });
    }
  });

  test("every downloaded file was imported (nothing rejected), each in the run that fetched it", () => {
    for (const run of runs) {
      const downloaded = run.report?.files.length ?? 0;
      expect(run.imported).toBe(downloaded);
    }
    const rows = db.prices.query("SELECT file_name, status FROM import_files ORDER BY file_name").all() as { file_name: string; status: string }[];
    expect(rows.map((r) => r.file_name).sort()).toEqual(Object.values(publications).flat().map((f) => f.name).sort());
    expect(rows.every((r) => r.status === "ok")).toBe(true);
  });

  test("the day before's file published after the last run comes with the next day's first run", () => {
    const lateNight = publications.night[1]!;
    expect(downloadsOf(lateNight.name)[0]!.at.toISOString()).toBe(israel(D2, "00:00").toISOString());
  });

  test("a chain whose day is complete is listed less often than one still waiting", () => {
    const listings = (portal: FakePortal) => portal.requests.filter((r) => r.path === "/" && r.search === "").length;
    // Both JSON portals answer the same listing; "early" is complete from 00:30 each day, "late" only from 17:00 on day 2.
    expect(listings(portals.early)).toBeLessThan(listings(portals.late) / 2);
    // The skipped day was listed every run.
    const day1Runs = runs.filter((r) => r.at.getTime() < israel(D2, "00:00").getTime()).length;
    expect(portals.late.requests.filter((r) => r.path === "/").length).toBeGreaterThanOrEqual(day1Runs);
  });

  test("a date-filtered portal is asked for the day before once, not at every run", () => {
    const dayBefore = portals.pharm.requests.filter((r) => new URLSearchParams(r.search).get("Date-equals") === "21/11/2026" && new URLSearchParams(r.search).get("Category-equals") === "PriceFull");
    expect(dayBefore.length).toBe(1);
  });

  test("next run per chain is recorded", () => {
    const rows = db.prices.query("SELECT chain_slug, next_run_at FROM chain_health WHERE next_run_at IS NOT NULL ORDER BY chain_slug").all() as { chain_slug: string }[];
    expect(rows.map((r) => r.chain_slug)).toEqual(["early", "flaky", "late", "night", "pharm"]);
  });

  test("a listed file answering 404 twice is retried within the run; one still failing comes with the next run", () => {
    const [twice, , , often] = publications.flaky;
    const gets = (name: string) => portals.flaky.requests.filter((r) => r.path === `/f/${name}`).length;
    expect(downloadsOf(twice!.name)[0]!.at.toISOString()).toBe(israel(D1, "05:00").toISOString());
    expect(gets(twice!.name)).toBe(3);
    // 3 attempts at 10:00 (FAST_HTTP: 2 retries), all 404; the 10:30 run's third attempt gets it.
    expect(downloadsOf(often!.name)[0]!.at.toISOString()).toBe(israel(D2, "10:30").toISOString());
    expect(gets(often!.name)).toBe(6);
  });
});
