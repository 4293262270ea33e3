import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fetchChains, FetchUsageError } from "../../../src/ingest/sources/fetch-chains.ts";
import { effectivePortal, loadSourcesFile, SourcesFileError } from "../../../src/ingest/sources/overrides.ts";
import { createLimiter } from "../../../src/ingest/sources/limiter.ts";
import { DAY, FAST_HTTP, NOW, never, bytesResponse, healthOf, htmlResponse, jsonResponse, memoryPrices, priceFullGz, registryOf, startFakePortal, tempDir } from "../../helpers/ingest/fake-portal.ts";

const C = "7290058159628";
const names = (n: number) => Array.from({ length: n }, (_, i) => `PriceFull${C}-${String(i + 1).padStart(3, "0")}-202611220500.gz`);

/** A Meshnat-style JSON portal (the simplest listing) whose file route is replaceable per test. */
function jsonPortal(list: string[], file: (name: string, req: Request) => Response | Promise<Response>) {
  const portal = startFakePortal((req, url) => {
    if (url.pathname === "/") return jsonResponse(list.map((name) => ({ name, url: `/f/${name}` })));
    if (url.pathname.startsWith("/f/")) return file(decodeURIComponent(url.pathname.slice(3)), req);
    return htmlResponse("not found", 404);
  });
  return portal;
}

const chainAt = (url: string, slug = "maayan-2000") => ({ slug, chain_codes: [C], portal: { family: "meshnatyosef", base_url: url } });

describe("fetchChains", () => {
  const stops: (() => void)[] = [];
  afterAll(() => stops.forEach((s) => s()));

  test("downloads at most perHostConcurrency files at once", async () => {
    let active = 0;
    let peak = 0;
    const portal = jsonPortal(names(8), async (name) => {
      active++;
      peak = Math.max(peak, active);
      await Bun.sleep(15);
      active--;
      return bytesResponse(priceFullGz(C, name.split("-")[1]!));
    });
    stops.push(portal.stop);
    const report = await fetchChains({ db: memoryPrices(), registry: registryOf(chainAt(portal.url)), dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {}, perHostConcurrency: 2 });
    expect(report.chains[0]!.downloaded).toHaveLength(8);
    expect(peak).toBe(2);
  });

  test("a download that hangs times out, is retried, then reported; the other files arrive", async () => {
    let hangs = 0;
    const [slow, ...rest] = names(3);
    // The slow file never comes: only the download timeout ends its attempts (long enough for the others on a loaded machine).
    const portal = jsonPortal([slow!, ...rest], async (name, req) => {
      if (name === slow) {
        hangs++;
        return never(req);
      }
      return bytesResponse(priceFullGz(C, "1"));
    });
    stops.push(portal.stop);
    const db = memoryPrices();
    const report = await fetchChains({ db, registry: registryOf(chainAt(portal.url)), dataDir: tempDir(), date: DAY, http: { ...FAST_HTTP, downloadTimeoutMs: 1_500, retries: 1 }, now: NOW, log: () => {} });
    const r = report.chains[0]!;
    expect(hangs).toBe(2);
    expect(r.status).toBe("partial");
    expect(r.downloaded).toHaveLength(2);
    expect(r.errors[0]).toContain(slow!);
    expect(r.errors[0]).toContain("timed out");
    expect(healthOf(db, "maayan-2000")!.last_error).toContain("timed out");
  });

  test("a truncated download (connection closed before Content-Length) is retried and succeeds", async () => {
    const gz = priceFullGz(C, "1", 40);
    let attempts = 0;
    const portal = jsonPortal(names(1), () => {
      attempts++;
      if (attempts === 1) {
        // Declares the whole length, sends half.
        const stream = new ReadableStream({
          start(c) {
            c.enqueue(gz.subarray(0, gz.length >> 1));
            c.close();
          },
        });
        return new Response(stream, { headers: { "content-length": String(gz.length), "content-type": "application/gzip" } });
      }
      return bytesResponse(gz);
    });
    stops.push(portal.stop);
    const dataDir = tempDir();
    const report = await fetchChains({ db: memoryPrices(), registry: registryOf(chainAt(portal.url)), dataDir, date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(report.chains[0]!.status).toBe("ok");
    expect(Bun.file(report.files[0]!).size).toBe(gz.length);
    expect(readdirSync(join(dataDir, "downloads", "maayan-2000", DAY))).toEqual([names(1)[0]!]);
  });

  test("a file that stays truncated is never kept or recorded as fetched", async () => {
    const gz = priceFullGz(C, "1", 40);
    const portal = jsonPortal(names(1), () => bytesResponse(gz.subarray(0, gz.length - 30)));
    stops.push(portal.stop);
    const db = memoryPrices();
    const dataDir = tempDir();
    const report = await fetchChains({ db, registry: registryOf(chainAt(portal.url)), dataDir, date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.status).toBe("failed");
    expect(report.chains[0]!.errors[0]).toContain("truncated");
    expect(readdirSync(join(dataDir, "downloads", "maayan-2000", DAY))).toEqual([]);
    expect((db.query("SELECT count(*) AS n FROM fetched_files").get() as { n: number }).n).toBe(0);
  });

  test("a failing chain keeps its last success; a later good run clears the error", async () => {
    let up = false;
    const portal = startFakePortal((_req, url) => {
      if (!up) return htmlResponse("down", 500);
      if (url.pathname === "/") return jsonResponse([{ name: names(1)[0], url: `/f/x` }]);
      return bytesResponse(priceFullGz(C, "1"));
    });
    stops.push(portal.stop);
    const db = memoryPrices();
    const registry = registryOf(chainAt(portal.url));
    const times = ["2026-11-22T09:00:00+02:00", "2026-11-22T10:00:00+02:00"];
    up = true;
    await fetchChains({ db, registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: () => new Date(times[0]!), log: () => {} });
    up = false;
    const failed = await fetchChains({ db, registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: () => new Date(times[1]!), log: () => {} });
    expect(failed.chains[0]!.status).toBe("failed");
    expect(healthOf(db, "maayan-2000")).toMatchObject({ last_attempt_at: times[1], last_success_at: times[0], files_fetched: 0 });
    expect(healthOf(db, "maayan-2000")!.last_error).toContain("HTTP 500");
  });

  test("chains: default every active chain; unknown slug is a usage error; bad date too", async () => {
    const portal = jsonPortal([], () => htmlResponse("", 404));
    stops.push(portal.stop);
    const registry = registryOf(chainAt(portal.url, "a"), { ...chainAt(portal.url, "b"), chain_codes: ["7290000000001"] }, { ...chainAt(portal.url, "old"), chain_codes: ["7290000000002"], active: false });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains.map((c) => c.slug)).toEqual(["a", "b"]);
    expect(fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), chains: ["nope"], log: () => {} })).rejects.toBeInstanceOf(FetchUsageError);
    expect(fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: "22/11/2026", log: () => {} })).rejects.toThrow(/bad date/);
  });

  test("sources override redirects a chain to another base URL and credentials", async () => {
    const real = jsonPortal(names(1), () => bytesResponse(priceFullGz(C, "1")));
    stops.push(real.stop);
    const file = join(tempDir(), "sources.json");
    writeFileSync(file, JSON.stringify({ "maayan-2000": { base_url: real.url, username: "u", password: "p" } }));
    const overrides = loadSourcesFile(file);
    const registry = registryOf(chainAt("https://unreachable.invalid"));
    expect(effectivePortal(registry.chains[0]!, overrides)).toMatchObject({ base_url: real.url, username: "u", password: "p", family: "meshnatyosef" });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, sourcesOverride: overrides, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]!.downloaded).toHaveLength(1);
  });

  test("a portal whose host does not resolve is not tried; its working fallback is, without an error", async () => {
    const mirror = jsonPortal(names(1), () => bytesResponse(priceFullGz(C, "1")));
    stops.push(mirror.stop);
    const registry = registryOf({ ...chainAt("https://portal.mehir-test.invalid"), portal: { family: "meshnatyosef", base_url: "https://portal.mehir-test.invalid", fallback_url: mirror.url } });
    const report = await fetchChains({ db: memoryPrices(), registry, dataDir: tempDir(), date: DAY, http: FAST_HTTP, now: NOW, log: () => {} });
    expect(report.chains[0]).toMatchObject({ status: "ok", errors: [], unreachable: [] });
    expect(report.chains[0]!.downloaded).toHaveLength(1);
  });

  test("unreachable portals fail their chain at once with the cause, recorded in its health", async () => {
    const port = (() => {
      const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
      const p = s.port!;
      s.stop(true);
      return p;
    })();
    const db = memoryPrices();
    const registry = registryOf(chainAt("https://portal.mehir-test.invalid"), { ...chainAt(`http://127.0.0.1:${port}`, "king-store"), chain_codes: ["7290000000001"] });
    const logs: { msg: string; fields?: Record<string, unknown> }[] = [];
    // Retries with a long backoff: a portal that were tried would take far longer than the test allows.
    const report = await fetchChains({ db, registry, dataDir: tempDir(), date: DAY, http: { ...FAST_HTTP, retries: 3, backoffMs: 60_000 }, now: NOW, log: (_l, msg, fields) => void logs.push({ msg, fields }) });
    expect(report.chains.map((c) => [c.slug, c.status, c.unreachable])).toEqual([
      ["maayan-2000", "failed", [{ failure: "cannot resolve", subject: "portal.mehir-test.invalid", reason: "no network?" }]],
      ["king-store", "failed", [{ failure: "cannot connect to", subject: `127.0.0.1:${port}`, reason: "connection refused" }]],
    ]);
    expect(healthOf(db, "maayan-2000")!.last_error).toBe("meshnatyosef https://portal.mehir-test.invalid: cannot resolve portal.mehir-test.invalid: no network?");
    expect(logs.filter((l) => l.msg === "fetch: portal unreachable").map((l) => l.fields!.endpoint)).toEqual(["portal.mehir-test.invalid:443", `127.0.0.1:${port}`]);
    expect(logs.some((l) => l.msg === "fetch: listing failed")).toBe(false);
  });

  test("behind a proxy, the proxy is what must be reached", async () => {
    const report = await fetchChains({
      db: memoryPrices(),
      registry: registryOf(chainAt("https://portal.mehir-test.invalid")),
      dataDir: tempDir(),
      date: DAY,
      http: { ...FAST_HTTP, env: { HTTPS_PROXY: "http://proxy.mehir-test.invalid:3128" } },
      now: NOW,
      log: () => {},
    });
    expect(report.chains[0]!.unreachable).toEqual([{ failure: "cannot resolve", subject: "the proxy proxy.mehir-test.invalid", reason: "no network?" }]);
  });

  test("a malformed sources file names the file and the field", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ "rami-levy": { base_url: "not a url" } }));
    writeFileSync(join(dir, "typo.json"), JSON.stringify({ "rami-levy": { baseurl: "https://x" } }));
    writeFileSync(join(dir, "broken.json"), "{");
    expect(() => loadSourcesFile(join(dir, "bad.json"))).toThrow(/rami-levy\.base_url/);
    expect(() => loadSourcesFile(join(dir, "typo.json"))).toThrow(SourcesFileError);
    expect(() => loadSourcesFile(join(dir, "broken.json"))).toThrow(/broken\.json/);
    expect(existsSync(join(dir, "bad.json"))).toBe(true);
  });

  test("the limiter never exceeds its bound under a burst", async () => {
    const limit = createLimiter(3);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        limit(async () => {
          active++;
          peak = Math.max(peak, active);
          await Bun.sleep(i % 3);
          active--;
        }),
      ),
    );
    expect(peak).toBe(3);
  });
});
