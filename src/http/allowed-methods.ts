/**
 * For a path that matched no route: the methods that other routes accept on it, so the app
 * can answer 405 with `Allow` instead of 404.
 */
export class AllowedMethods {
  private patterns: { regex: RegExp; method: string }[] | null = null;

  constructor(private readonly routes: () => { method: string; path: string }[]) {}

  for(pathname: string): string[] {
    this.patterns ??= this.routes()
      .filter((r) => r.method !== "ALL")
      .map((r) => ({
        method: r.method,
        regex: new RegExp(
          "^" + r.path.replace(/\/$/, "").replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*") + "$",
        ),
      }));
    // One trailing slash is optional on every route; `//` is another path.
    const path = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
    return [...new Set(this.patterns.filter((p) => p.regex.test(path)).map((p) => p.method))];
  }
}
