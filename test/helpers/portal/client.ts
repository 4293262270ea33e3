/** A tiny browser stand-in for portal tests: a cookie jar, form posts, the CSRF field read from pages. */
export class PortalClient {
  readonly jar = new Map<string, string>();
  lastHtml = "";

  constructor(
    private readonly app: { handle(r: Request): Promise<Response> },
    private readonly headers: Record<string, string> = {},
  ) {}

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attrs.some((a) => a.trim().toLowerCase() === "max-age=0")) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async get(path: string): Promise<Response> {
    const res = await this.app.handle(new Request(`http://localhost${path}`, { headers: { ...this.headers, cookie: this.cookieHeader() } }));
    this.keep(res);
    this.lastHtml = await res.clone().text();
    return res;
  }

  async post(path: string, fields: Record<string, string>, extra: Record<string, string> = {}): Promise<Response> {
    const res = await this.app.handle(
      new Request(`http://localhost${path}`, {
        method: "POST",
        headers: { ...this.headers, "content-type": "application/x-www-form-urlencoded", cookie: this.cookieHeader(), ...extra },
        body: new URLSearchParams(fields).toString(),
      }),
    );
    this.keep(res);
    this.lastHtml = await res.clone().text();
    return res;
  }

  /** The CSRF token of the last page's first form. */
  csrf(): string {
    const match = /name="csrf" value="([^"]+)"/.exec(this.lastHtml);
    if (!match) throw new Error("no csrf field on the last page");
    return match[1]!;
  }

  /** The single-use token of the last page's create-key form. */
  formToken(): string {
    const match = /name="form_token" value="([^"]+)"/.exec(this.lastHtml);
    if (!match) throw new Error("no create-key form on the last page");
    return match[1]!;
  }

  async signUp(email: string, password = "correct horse battery"): Promise<Response> {
    await this.get("/portal/signup");
    return this.post("/portal/signup", { csrf: this.csrf(), email, password });
  }

  async signIn(email: string, password: string): Promise<Response> {
    await this.get("/portal/signin");
    return this.post("/portal/signin", { csrf: this.csrf(), email, password });
  }

  /** Creates a key from the dashboard; returns the key shown once. */
  async createKey(kind: string, origins = "", name = ""): Promise<string> {
    await this.get("/portal/");
    const res = await this.post("/portal/keys", { csrf: this.csrf(), form_token: this.formToken(), kind, origins, name });
    if (res.status !== 200) throw new Error(`create key: ${res.status}`);
    const match = /<code class="newkey" id="new-key"[^>]*>([^<]+)<\/code>/.exec(this.lastHtml);
    if (!match) throw new Error("no new key on the page");
    return match[1]!;
  }
}
