import { existsSync } from "node:fs";
import type { BrowserContext } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). Never a downloaded browser. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Whether the browser tests can run here; when not, says so once for `suite` (they are skipped:
 * a machine without Chromium cannot run a browser, and everything else still tests).
 */
export function chromiumFor(suite: string): boolean {
  const found = existsSync(CHROMIUM);
  if (!found) console.warn(`${suite} e2e: skipped — ${CHROMIUM} not found (apt-get install chromium)`);
  return found;
}

/** Headless Chromium with a fresh profile in `profileDir`, no background traffic of its own. */
export async function launchChromium(profileDir: string, viewport: { width: number; height: number }): Promise<BrowserContext> {
  const { chromium } = await import("playwright-core");
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    viewport,
  });
}
