import { afterAll, describe, expect, spyOn, test, setDefaultTimeout } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { main } from "../../src/main.ts";
import { createFetchCommand } from "../../src/cli/fetch.ts";
import { runImportInWorker } from "../../src/ingest/run/run-in-worker.ts";
import { bytesResponse, htmlResponse, jsonResponse, priceFullGz, startFakePortal, tempDir } from "../helpers/ingest/fake-portal.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

const KS = "7290058108879";

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  const error = spyOn(console, "error").mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
  try {
    const code = await main(args);
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe("mehir fetch", () => {
  const portal = startFakePortal((_req, url, body) => {
    if (url.pathname === "/MainIO_Hok.aspx") return jsonResponse(new URLSearchParams(body).get("WFileType") === "4" ? [{ FileNm: `PriceFull${KS}-001-202611220500.gz` }] : []);
    if (url.pathname === "/Download.aspx") return jsonResponse([{ SPath: `/files/x.gz` }]);
    if (url.pathname === "/files/x.gz") return bytesResponse(priceFullGz(KS, "1"));
    return htmlResponse("not found", 404);
  });
  afterAll(() => portal.stop());

  test("--help documents the flags", async () => {
    const { code, out } = await run(["fetch", "--help"]);
    expect(code).toBe(0);
    for (const flag of ["--chain SLUG", "--date YYYY-MM-DD", "--deltas", "--data-dir DIR", "--sources-file", "HTTPS_PROXY"]) expect(out).toContain(flag);
  });

  test("usage errors: unknown chain, bad date, unknown flag", async () => {
    expect((await run(["fetch", "--chain", "no-such-chain", "--data-dir", tempDir()])).err).toContain('unknown chain "no-such-chain"');
    expect((await run(["fetch", "--date", "22/11/2026", "--data-dir", tempDir()])).code).toBe(2);
    expect((await run(["fetch", "--bogus"])).code).toBe(2);
  });

  test("fetches one chain through a sources-file override and reports per chain", async () => {
    const dir = tempDir();
    const sources = join(dir, "sources.json");
    writeFileSync(sources, JSON.stringify({ "king-store": { base_url: portal.url } }));
    const dataDir = join(dir, "data");
    const { code, out } = await run(["fetch", "--chain", "king-store", "--date", "2026-11-22", "--data-dir", dataDir, "--sources-file", sources]);
    expect(code).toBe(0);
    expect(out).toContain("king-store");
    expect(out).toMatch(/ok\s+1 new/);
    expect(await Bun.file(join(dataDir, "downloads", "king-store", "2026-11-22", `PriceFull${KS}-001-202611220500.gz`)).exists()).toBe(true);
    const db = new Database(join(dataDir, "prices.sqlite"), { readonly: true });
    expect(db.query("SELECT files_fetched, last_error FROM chain_health WHERE chain_slug = 'king-store'").get()).toEqual({ files_fetched: 1, last_error: null });
    db.close();
  });

  test("imports the downloads as live data through the worker (the same fetchAndImport as serve)", async () => {
    const dir = tempDir();
    const sources = join(dir, "sources.json");
    writeFileSync(sources, JSON.stringify({ "king-store": { base_url: portal.url } }));
    const seen: { paths: string[]; origin: string; source: string }[] = [];
    const command = createFetchCommand(async (request) => {
      seen.push({ paths: request.paths, origin: request.origin, source: request.source });
      return runImportInWorker(request);
    });
    const lines: string[] = [];
    const log = spyOn(console, "log").mockImplementation((...a: unknown[]) => void lines.push(a.join(" ")));
    try {
      expect(await command.run(["--chain", "king-store", "--date", "2026-11-22", "--data-dir", join(dir, "data"), "--sources-file", sources])).toBe(0);
    } finally {
      log.mockRestore();
    }
    expect(seen).toEqual([{ paths: [join(dir, "data", "downloads", "king-store", "2026-11-22", `PriceFull${KS}-001-202611220500.gz`)], origin: "fetch", source: "live" }]);
    expect(lines.join("\n")).toMatch(/imported 1 of 1 file/);
    const db = new Database(join(dir, "data", "prices.sqlite"), { readonly: true });
    expect(db.query("SELECT value FROM meta WHERE key = 'source'").get()).toEqual({ value: "live" });
    expect(db.query("SELECT count(*) AS n FROM price_current").get()).toEqual({ n: 2 });
    db.close();
  });

  test("an import that fails exits 1 and forgets the files, so the next run fetches them again", async () => {
    const dir = tempDir();
    const sources = join(dir, "sources.json");
    writeFileSync(sources, JSON.stringify({ "king-store": { base_url: portal.url } }));
    const command = createFetchCommand(async () => {
      throw new Error("import worker: disk full");
    });
    const out: string[] = [];
    const log = spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
    const err = spyOn(console, "error").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
    try {
      expect(await command.run(["--chain", "king-store", "--date", "2026-11-22", "--data-dir", join(dir, "data"), "--sources-file", sources])).toBe(1);
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    expect(out.join("\n")).toMatch(/king-store\s+ok\s+1 new/);
    expect(out.join("\n")).toContain("import of 1 fetched file(s) failed: import worker: disk full");
    const db = new Database(join(dir, "data", "prices.sqlite"), { readonly: true });
    expect(db.query("SELECT count(*) AS n FROM fetched_files").get()).toEqual({ n: 0 });
    db.close();
  });

  test("a failed chain exits 1", async () => {
    const dir = tempDir();
    const sources = join(dir, "sources.json");
    const down = startFakePortal(() => htmlResponse("nope", 404));
    try {
      writeFileSync(sources, JSON.stringify({ "king-store": { base_url: down.url } }));
      const { code, out } = await run(["fetch", "--chain", "king-store", "--date", "2026-11-22", "--data-dir", join(dir, "data"), "--sources-file", sources]);
      expect(code).toBe(1);
      expect(out).toContain("failed");
    } finally {
      down.stop();
    }
  });
});
