/**
 * The app's route patterns, for requests answered before Elysia routed them (the access layer
 * refuses keys in onRequest): `match` names the pattern a path belongs to, so such answers are
 * counted under their route rather than as unmatched.
 */
export class RoutePatterns {
  private patterns: { method: string; path: string; regex: RegExp }[] | null = null;

  constructor(private readonly routes: () => { method: string; path: string }[]) {}

  private all() {
    return (this.patterns ??= this.routes()
      .filter((r) => r.method !== "ALL")
      .map((r) => ({
        method: r.method,
        path: r.path.length > 1 && r.path.endsWith("/") ? r.path.slice(0, -1) : r.path,
        regex: new RegExp(
          "^" + r.path.replace(/\/$/, "").replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*") + "/?$",
        ),
      })));
  }

  /** The pattern registered for this method and path (HEAD counts as GET), or null. */
  match(method: string, pathname: string): string | null {
    const m = method === "HEAD" ? "GET" : method;
    const path = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
    return this.all().find((p) => p.method === m && p.regex.test(path))?.path ?? null;
  }

  /** Whether some other method is registered for the path (a 405 rather than a 404). */
  hasAnyMethod(pathname: string): boolean {
    const path = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
    return this.all().some((p) => p.regex.test(path));
  }
}
