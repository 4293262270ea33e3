import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bumpDataVersion } from "../../../src/data/data-state.ts";
import { openDataDir } from "../../../src/db/open.ts";
import { ServeProcess } from "../serve-process.ts";
import { PortalClient } from "./client.ts";

/**
 * A data dir `mehir serve` starts on without generating the demo (its price data has a version,
 * no rows): for tests of the portal on a real server process, where the demo's minutes of CPU
 * would only slow them down. The caller removes it.
 */
export function portalDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mehir-portal-served-"));
  const db = openDataDir(dir);
  bumpDataVersion(db.prices, "2026-11-22T05:30:00+02:00", "demo");
  db.prices.close();
  db.accounts.close();
  return dir;
}

/** `mehir serve` on `dataDir` trusting X-Forwarded-For, so a test can be any client address. */
export function servePortal(dataDir: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  return ServeProcess.start({ dataDir, env: { MEHIR_TRUST_PROXY: "on", ...env }, name: "portal" });
}

/**
 * A PortalClient talking to `server` over HTTP as client address `address` (X-Forwarded-For),
 * redirects not followed (as the in-process client sees them).
 */
export function portalClient(server: ServeProcess, address: string, headers: Record<string, string> = {}): PortalClient {
  const overHttp = {
    handle(request: Request): Promise<Response> {
      const { pathname, search } = new URL(request.url);
      return fetch(new Request(`${server.url}${pathname}${search}`, request), { redirect: "manual" });
    },
  };
  return new PortalClient(overHttp, { "x-forwarded-for": address, ...headers });
}
