import { afterAll, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRegistry } from "../../src/registry.ts";

// Starts processes, servers or workers: sized for a loaded 2-core machine, not the 5 s default.
setDefaultTimeout(180_000);

/**
 * `mehir fetch` with no network, simulated without touching one: every active chain's portals
 * are pointed (MEHIR_SOURCES_FILE) at names under `.invalid` (never resolvable) except one at a
 * loopback port nobody listens on. The run must say why once per cause, keep its report on stdout
 * and its JSON logs on stderr, and exit 1.
 */
const MAIN = join(import.meta.dir, "../../src/main.ts");
const dir = mkdtempSync(join(tmpdir(), "mehir-fetch-offline-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A loopback port that refuses connections: one a server held and let go. */
function closedPort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = server.port!;
  server.stop(true);
  return port;
}

test("no network: one line per cause on stdout, JSON logs on stderr, status 1", async () => {
  const registry = loadRegistry();
  const active = registry.chains.filter((c) => c.active);
  const refused = closedPort();
  const [refusedChain, ...rest] = active;
  const overrides: Record<string, unknown> = {};
  for (const chain of rest) {
    overrides[chain.slug] = {
      base_url: "https://portal.mehir-offline.invalid",
      fallback_url: null,
      extra_portals: (chain.extra_portals ?? []).map(() => ({ base_url: "https://mirror.mehir-offline.invalid", fallback_url: null })),
    };
  }
  overrides[refusedChain!.slug] = { base_url: `http://127.0.0.1:${refused}`, fallback_url: null, extra_portals: (refusedChain!.extra_portals ?? []).map(() => null) };
  const sources = join(dir, "sources.json");
  writeFileSync(sources, JSON.stringify(overrides));

  const env = { ...process.env, MEHIR_LOG_LEVEL: "info", HTTPS_PROXY: "", HTTP_PROXY: "", https_proxy: "", http_proxy: "" };
  const started = performance.now();
  // Generous bound for a loaded 2-core machine; the run itself takes a few seconds (bench/RESULTS.md, "Fetch with no network").
  const proc = Bun.spawn([process.execPath, MAIN, "fetch", "--data-dir", join(dir, "data"), "--sources-file", sources, "--date", "2026-11-22"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env,
    timeout: 90_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const seconds = (performance.now() - started) / 1000;
  const context = `after ${seconds.toFixed(1)} s\nstdout:\n${stdout}\nstderr:\n${stderr.slice(0, 4000)}`;

  expect(code, context).toBe(1);
  const out = stdout.trimEnd().split("\n");
  expect(out.filter((l) => l.trimStart().startsWith("{")), context).toEqual([]);
  expect(out[0]).toBe("fetch 2026-11-22: 0 new file(s)");
  for (const chain of active) expect(out.some((l) => new RegExp(`^  ${chain.slug}\\s+failed\\s.*not reached \\(below\\)$`).test(l)), `${chain.slug}\n${context}`).toBe(true);
  // The causes, once each, naming the hosts and the chains they stopped.
  const withExtras = active.some((c) => c.extra_portals?.length);
  const hosts = withExtras ? "portal.mehir-offline.invalid, mirror.mehir-offline.invalid" : "portal.mehir-offline.invalid";
  expect(out.slice(-3), context).toEqual([
    "not reached (2 causes):",
    `  cannot connect to 127.0.0.1:${refused}: connection refused  (chains: ${refusedChain!.slug})`,
    `  cannot resolve ${hosts}: no network?  (chains: ${rest.slice(0, 4).map((c) => c.slug).join(", ")} and ${rest.length - 4} more)`,
  ]);

  // stderr: JSON log lines only, among them one per unreachable endpoint.
  const logs = stderr.trimEnd().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { msg: string; endpoint?: string; cause?: string });
  expect(logs.filter((l) => l.msg === "fetch: portal unreachable").map((l) => l.endpoint).sort()).toEqual(
    [`127.0.0.1:${refused}`, "portal.mehir-offline.invalid:443", ...(withExtras ? ["mirror.mehir-offline.invalid:443"] : [])].sort(),
  );
}, 120_000);
