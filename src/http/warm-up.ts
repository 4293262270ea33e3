/** The paths a load balancer asks first: answered once before the server listens. */
export const WARMED_PATHS = ["/healthz", "/readyz"] as const;

/**
 * Answers /healthz and /readyz once through the whole app before it listens: the first request
 * down a path compiles and JIT-warms Elysia's handler and the shared hooks — 20–55 ms on a later
 * start, longer beside a first start's workers (bench/RESULTS.md, First start) — and the first
 * probe of a load balancer was the one that waited. Like any probe they are in the request log and metrics.
 *
 * @example await warmUp(app); app.listen({ port })
 */
/** The warm-up's own requests: neither logged nor counted (no client made them). Held by identity, so no header can claim it. */
const warmUps = new WeakSet<Request>();

/** Whether a request is one of the warm-up's own. */
export function isWarmUp(request: Request): boolean {
  return warmUps.has(request);
}

export async function warmUp(app: { handle(request: Request): Promise<Response> }): Promise<number[]> {
  const statuses: number[] = [];
  for (const path of WARMED_PATHS) {
    const request = new Request(`http://localhost${path}`);
    warmUps.add(request);
    const res = await app.handle(request);
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}
