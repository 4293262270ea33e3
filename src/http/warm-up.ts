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
export async function warmUp(app: { handle(request: Request): Promise<Response> }): Promise<number[]> {
  const statuses: number[] = [];
  for (const path of WARMED_PATHS) {
    const res = await app.handle(new Request(`http://localhost${path}`));
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}
