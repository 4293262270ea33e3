/**
 * Per-portal spacing: requests to one host start at least `spacingMs` apart, whichever chain's
 * client sends them, so a run listing many chains of one portal (Cerberus serves a dozen) never
 * hammers it. Returns the wait to await before each request.
 * @example const pace = createPacer(250); await pace("https://url.publishedprices.co.il/file/json/dir");
 */
export function createPacer(spacingMs: number): (url: string) => Promise<void> {
  const nextStart = new Map<string, number>();
  return async (url: string) => {
    if (spacingMs <= 0) return;
    const host = new URL(url).host;
    const now = Date.now();
    const at = Math.max(now, nextStart.get(host) ?? 0);
    nextStart.set(host, at + spacingMs);
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  };
}
