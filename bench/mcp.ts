/**
 * What a tool call costs over the API call it makes (issue 26): `POST /mcp` `tools/call get_prices`
 * against `GET /api/v1/prices/?barcode=` for the same barcodes, on the real server and the
 * synthetic national database, both driven by bench/loadgen.ts in a separate process; plus
 * `tools/list` (the protocol alone, no API call). The baseline is the direct API call, measured
 * in the same run.
 *
 *   bun bench/mcp.ts [--scale 1] [--seconds 10] [--connections 10] [--quick] [--record]
 *
 * Full runs (no --quick) record their figures in bench/RESULTS.md under "## MCP". No target: the
 * figures say what an assistant's tool call adds (JSON-RPC parse, the SDK's server per request,
 * one in-process pass through the app, the answer serialised once more).
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { PRICES_FILE } from "../src/db/open.ts";
import { ensureNational } from "./national.ts";
import { popularBarcodes } from "./lib/national-build.ts";
import { BENCH_ENV, createBenchKey } from "./lib/bench-key.ts";
import { runLoadgen, startApi, type CpuShare } from "./lib/processes.ts";
import { flag, numberOption } from "./lib/args.ts";
import { int, ms } from "./lib/stats.ts";
import { machineLine, table, writeSection } from "./lib/results.ts";
import type { LoadPlan, LoadReport, RequestKind } from "./loadgen.ts";

interface Row {
  name: string;
  report: LoadReport;
  cpu: CpuShare | null;
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

function toolCall(barcode: string, id: number): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_prices", arguments: { barcode } } });
}

export async function mcpBench(options: { scale: number; seconds: number; connections: number; record: boolean }) {
  const dataDir = ensureNational(options.scale);
  const key = createBenchKey(dataDir, "mcp-bench");
  const db = new Database(join(dataDir, PRICES_FILE), { readonly: true });
  const barcodes = popularBarcodes(db, 500);
  db.close();

  const rows: Row[] = [];
  const api = await startApi(dataDir, BENCH_ENV);
  try {
    // Every answer cached first, so both rows measure the warm path.
    const measure = async (name: string, kinds: RequestKind[]) => {
      const base: LoadPlan = { baseUrl: api.url, kinds, concurrency: options.connections, headers: { "x-api-key": key } };
      await runLoadgen({ ...base, warmupRequests: 1, maxRequests: 2000 });
      const { report, cpu } = await runLoadgen({ ...base, durationS: options.seconds }, { serverPid: api.pid });
      rows.push({ name, report, cpu });
      if (report.errors > 0) console.error(`[mcp] ${name}: ${report.errors} errors, e.g. ${report.firstErrors.slice(0, 3).join(" | ")}`);
    };
    const check = await fetch(`${api.url}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, "x-api-key": key }, body: toolCall(barcodes[0]!, 1) });
    const body = (await check.json()) as { result?: { isError?: boolean } };
    if (check.status !== 200 || !body.result || body.result.isError) throw new Error(`tools/call check failed: ${check.status} ${JSON.stringify(body).slice(0, 300)}`);

    await measure("GET /api/v1/prices/ (the API call itself)", [
      { name: "api", weight: 1, paths: barcodes.map((b) => `/api/v1/prices/?barcode=${b}`), headers: { "accept-encoding": "identity" } },
    ]);
    await measure("POST /mcp tools/call get_prices (same barcodes)", [
      { name: "mcp-call", weight: 1, method: "POST", paths: ["/mcp"], headers: MCP_HEADERS, bodies: barcodes.map((b, i) => toolCall(b, i + 1)) },
    ]);
    await measure("POST /mcp tools/list (protocol only, no API call)", [
      { name: "mcp-list", weight: 1, method: "POST", paths: ["/mcp"], headers: MCP_HEADERS, bodies: [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })] },
    ]);
  } finally {
    await api.stop();
  }

  const [direct, call, list] = rows.map((r) => r.report) as [LoadReport, LoadReport, LoadReport];
  const us = (row: Row) => (row.cpu ? row.cpu.serverUsPerRequest : NaN);
  const added = us(rows[1]!) - us(rows[0]!);
  const cores = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(2));
  const markdown = [
    machineLine(`scale ${options.scale}, ${options.connections} connections (closed loop), ${options.seconds} s per row`),
    "",
    table(
      ["workload", "req/s", "vs the API call", "p50 ms", "p99 ms", "errors", "server µs CPU/req", "CPU: server / loadgen / other (cores)"],
      rows.map(({ name, report, cpu }) => [
        name,
        int(report.requestsPerSecond),
        `${((report.requestsPerSecond / direct.requestsPerSecond) * 100).toFixed(0)} %`,
        ms(report.latency.p50),
        ms(report.latency.p99),
        String(report.errors),
        cpu ? int(cpu.serverUsPerRequest) : "–",
        cpu ? `${cores(cpu.server)} / ${cores(cpu.loadgen)} / ${cores(cpu.other)}` : "–",
      ]),
    ),
    "",
    `A tool call is the API call made in-process plus the MCP envelope: the SDK's server and transport made for the request (stateless), ` +
      `JSON-RPC parsed and validated, the arguments checked, one pass through the app for the API request, its answer parsed and sent back as ` +
      `structured content, a readable text and the JSON text. Both rows ask for the same 500 most widely sold barcodes, warm (every answer ` +
      `cached), without gzip (MCP answers are not compressed; the API row asks for identity to compare like with like). ` +
      `Server CPU per request: ${int(us(rows[0]!))} µs for the API call, ${int(us(rows[1]!))} µs for the tool call (+${int(added)} µs), ` +
      `${int(us(rows[2]!))} µs for tools/list. Tool calls answer at ${((call.requestsPerSecond / direct.requestsPerSecond) * 100).toFixed(0)} % of the API call's rate; ` +
      `tools/list at ${int(list.requestsPerSecond)} req/s. "other" is CPU used outside the bench (a shared 2-core machine).`,
  ].join("\n");
  if (options.record) writeSection("MCP", markdown);
  return { rows, markdown };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = flag(args, "quick");
  const { markdown } = await mcpBench({
    scale: numberOption(args, "scale", quick ? 0.05 : 1),
    seconds: numberOption(args, "seconds", quick ? 3 : 10),
    connections: numberOption(args, "connections", 10),
    record: flag(args, "record") || !quick,
  });
  console.log(markdown);
}
