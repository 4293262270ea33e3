import type { Audience, Operation } from "../openapi/operation.ts";

/**
 * What a route declares about its access: an operation of the API (documented), or a route the
 * document leaves out but that still sits where keys are checked (the widget data's CORS preflight).
 */
export type RouteDeclaration = Pick<Operation, "path" | "audience"> &
  Partial<Pick<Operation, "liveOnly" | "accountData" | "itemsPerCall" | "alsoAnswers">> & { method: Operation["method"] | "options" };

/**
 * Paths where every route must declare who may call it: a request to one of them that reaches no
 * declared route is refused (`undeclared`), so a route added without a declaration is never public.
 */
const DECLARED_ONLY = /^\/(api\/|mcp(\/|$))/;

/** A route as the app registered it. */
export interface RegisteredRoute {
  method: string;
  path: string;
}

/** A request's route (null: none matched) and who may call it. */
export interface RouteAudience {
  route: MatchedRoute | null;
  /** `undeclared`: under /api/ or /mcp with no declared route (refused by the access layer). */
  audience: Audience | "undeclared";
}

/** A path matched to a route: its pattern (no trailing slash) and the operation declared for it, if any. */
export interface MatchedRoute {
  /** The route pattern, e.g. `/api/v1/prices/:barcode/history`. */
  readonly path: string;
  /** The operation declared on the route (its audience, live-only, account data, counting); null for undocumented routes. */
  readonly operation: Pick<RouteDeclaration, "audience" | "liveOnly" | "accountData" | "itemsPerCall"> | null;
}

interface Pattern {
  method: string;
  path: string;
  regex: RegExp;
  params: number;
  operation: MatchedRoute["operation"];
  /** What match() answers for this pattern (made once). */
  matched: MatchedRoute;
}

/**
 * The one route matcher of the app: the access layer (before Elysia routes a request, to learn
 * its audience), the request log and metrics (answers given before routing), and the 405 `Allow`
 * list all match paths here, with Elysia's rules — one trailing slash optional, `:param` one
 * segment, `*` the rest, a static route before a parametric one. Each route's rules come from
 * the operation declared on it (`audience`, `liveOnly`, `accountData`, `itemsPerCall`).
 */
export class RouteTable {
  private patterns: Pattern[] | null = null;
  /** Static routes by `METHOD path` (the first registered wins, as in the scan): one Map lookup. */
  private statics: Map<string, Pattern> | null = null;
  /** Routes with a `:param` or `*`, in the order the scan tries them. */
  private dynamic: Pattern[] = [];

  constructor(
    private readonly routes: () => readonly RegisteredRoute[],
    private readonly operations: readonly RouteDeclaration[],
  ) {}

  /** The route registered for this method and path (HEAD is answered like GET), or null. */
  match(method: string, pathname: string): MatchedRoute | null {
    const m = method === "HEAD" ? "GET" : method;
    const path = trimSlash(pathname);
    this.all();
    // Static routes come first in the scan's order, so their exact match is the scan's answer.
    const found = this.statics!.get(`${m} ${path}`) ?? this.dynamic.find((p) => p.method === m && p.regex.test(path));
    return found ? found.matched : null;
  }

  /**
   * Who may call this method on this path: the declared audience; `undeclared` under /api/ and
   * /mcp without a declaration (matched or not); `public` elsewhere (pages, files, probes).
   */
  audience(method: string, pathname: string): RouteAudience {
    const route = this.match(method, pathname);
    const declared = route?.operation?.audience;
    return { route, audience: declared ?? (DECLARED_ONLY.test(pathname) ? "undeclared" : "public") };
  }

  /** The methods routes accept on the path (a 405 with `Allow` rather than a 404). */
  methodsFor(pathname: string): string[] {
    const path = trimSlash(pathname);
    return [...new Set(this.all().filter((p) => p.regex.test(path)).map((p) => p.method))];
  }

  private all(): Pattern[] {
    if (this.patterns) return this.patterns;
    const declared = declaredRoutes(this.operations);
    this.patterns = this.routes()
      .filter((r) => r.method !== "ALL")
      .map((r) => {
        const path = trimSlash(r.path);
        const source = path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*");
        const operation = declared.get(`${r.method} ${path}`) ?? null;
        return { method: r.method, path, regex: new RegExp(`^${source}$`), params: (path.match(/[:*]/g) ?? []).length, operation, matched: { path, operation } };
      })
      // Static routes first (`/api/v1/prices/batch` before `/api/v1/prices/:barcode`), in registration order otherwise.
      .sort((a, b) => Math.sign(a.params) - Math.sign(b.params));
    this.statics = new Map();
    for (const p of this.patterns) {
      const key = `${p.method} ${p.path}`;
      if (p.params === 0 && !this.statics.has(key)) this.statics.set(key, p);
    }
    this.dynamic = this.patterns.filter((p) => p.params > 0);
    return this.patterns;
  }
}

/** The declarations by `METHOD path` (path without its trailing slash), each method a route answers. */
function declaredRoutes(declarations: readonly RouteDeclaration[]): Map<string, RouteDeclaration> {
  const declared = new Map<string, RouteDeclaration>();
  for (const op of declarations) {
    for (const method of [op.method.toUpperCase(), ...(op.alsoAnswers ?? [])]) declared.set(`${method} ${trimSlash(op.path)}`, op);
  }
  return declared;
}

/**
 * The registered routes under /api/ and /mcp that nothing declares (their audience would be
 * unknown). The app refuses to start with any (app.ts); a route added after start is refused per
 * request instead (`undeclared`, in RouteTable.audience).
 */
export function undeclaredRoutes(registered: readonly RegisteredRoute[], declarations: readonly RouteDeclaration[]): RegisteredRoute[] {
  const declared = declaredRoutes(declarations);
  return registered.filter((r) => DECLARED_ONLY.test(r.path) && !declared.has(`${r.method} ${trimSlash(r.path)}`));
}

/** A path without its one optional trailing slash (`//` stays another path). */
export function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}
