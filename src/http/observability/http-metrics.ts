import { Counter, Histogram, type HistogramSeries } from "../../lib/prometheus.ts";

/** Latency buckets, seconds: fine below 25 ms where the API's targets are. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** What one answered request contributes to the metrics. */
export interface RequestRecord {
  method: string;
  /** Route pattern as registered (`/api/v1/prices/:barcode/history`), or `unmatched`. */
  route: string;
  status: number;
  seconds: number;
  /** The problem+json code of an error answer, when known. */
  errorCode: string | null;
}

/** Request counters and latency histograms of one process. */
export class HttpMetrics {
  readonly requests = new Counter("mehir_http_requests_total", "HTTP requests answered, by method, route pattern and status");
  readonly latency = new Histogram("mehir_http_request_duration_seconds", "Time from receiving a request to handing its answer to the server, by route pattern", LATENCY_BUCKETS);
  readonly quotaRejections = new Counter("mehir_quota_rejections_total", "Requests refused with quota_exceeded (monthly quota spent)");
  readonly rateLimited = new Counter("mehir_rate_limited_total", "Requests refused with rate_limited");

  /**
   * Each route's series by method and status, found by map lookups on the values as they come
   * (no label objects or key text made per request; the series are the counters' own).
   */
  private readonly byRoute = new Map<string, { latency: HistogramSeries; requests: Map<string, Map<number, { value: number }>> }>();

  record(r: RequestRecord): void {
    const route = this.routeOf(r.route);
    this.requestsOf(route, r.method, r.route, r.status).value++;
    this.latency.observeIn(route.latency, r.seconds);
    if (r.errorCode === "quota_exceeded") this.quotaRejections.inc();
    else if (r.errorCode === "rate_limited") this.rateLimited.inc();
  }

  /**
   * `record` of requests without an error code, for one method, route and status, its series found
   * once: for a caller answering many requests alike (the express lane). Takes the seconds.
   */
  recorder(method: string, path: string, status: number): (seconds: number) => void {
    const route = this.routeOf(path);
    const requests = this.requestsOf(route, method, path, status);
    return (seconds) => {
      requests.value++;
      this.latency.observeIn(route.latency, seconds);
    };
  }

  /** A route's series (its latency, its request counters by method and status), made when new. */
  private routeOf(path: string) {
    let route = this.byRoute.get(path);
    if (!route) this.byRoute.set(path, (route = { latency: this.latency.seriesOf({ route: path }), requests: new Map() }));
    return route;
  }

  /** The request counter of a route's method and status, made when new. */
  private requestsOf(route: { requests: Map<string, Map<number, { value: number }>> }, method: string, path: string, status: number): { value: number } {
    let byStatus = route.requests.get(method);
    if (!byStatus) route.requests.set(method, (byStatus = new Map()));
    let requests = byStatus.get(status);
    if (!requests) byStatus.set(status, (requests = this.requests.entry({ method, route: path, status: String(status) })));
    return requests;
  }

  render(): string {
    // Present even before the first refusal, so alerts can use rate() from zero.
    if (this.quotaRejections.get() === 0) this.quotaRejections.inc({}, 0);
    if (this.rateLimited.get() === 0) this.rateLimited.inc({}, 0);
    return this.requests.render() + this.latency.render() + this.quotaRejections.render() + this.rateLimited.render();
  }
}
