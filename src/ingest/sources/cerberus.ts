import { HttpError } from "./http.ts";
import { joinUrl, listedFile } from "./listing.ts";
import { lastSegment } from "./html.ts";
import { PortalError, type AdapterContext, type ListedFile, type ListOptions, type PortalAdapter } from "./types.ts";

const CSRF = /<meta\s+name=["']csrftoken["']\s+content=["']([^"']+)["']/i;

interface DirRow {
  fname?: string;
  name?: string;
  type?: string;
  size?: number | string;
  ftime?: string;
  time?: string;
}

/**
 * Whether the page after signing in is the file manager: success redirects to `/file`, whose
 * page names the user ("Logged in as …") and links the logout; a rejected login lands back on
 * the login form. A password field says nothing either way (the file page may carry a
 * change-password dialog).
 */
function isFilePage(url: string, text: string): boolean {
  return new URL(url).pathname.startsWith("/file") || /logged in as|href=["'][^"']*\/logout/i.test(text);
}

/**
 * Cerberus ("publishedprices") web portal: `GET /login` → CSRF meta tag + `cftpSID` cookie →
 * `POST /login/user` → `POST /file/json/dir` (DataTables JSON `aaData`) → `GET /file/d/<name>`.
 * An expired session answers the HTML login page instead of JSON (or instead of the file):
 * the adapter logs in again once and repeats the call.
 *
 * @example new CerberusAdapter(ctx).list({ date: "2026-11-22", deltas: false })
 */
export class CerberusAdapter implements PortalAdapter {
  readonly family = "cerberus" as const;
  private csrf: string | null = null;
  private login: Promise<void> | null = null;
  /** Counts sessions, so concurrent calls that all hit an expired one log in again only once. */
  private generation = 0;

  constructor(private readonly ctx: AdapterContext) {}

  private get base(): string {
    return this.ctx.portal.base_url;
  }

  private get folder(): string {
    const f = (this.ctx.portal.folder ?? "/").trim();
    return f.startsWith("/") ? f : "/" + f;
  }

  /** Logs in once; concurrent callers share the same attempt. */
  private ensureLogin(): Promise<void> {
    this.login ??= this.doLogin().catch((error) => {
      this.login = null;
      throw error;
    });
    return this.login;
  }

  /** Starts a new session unless another caller already did since session `seen`. */
  private relogin(seen: number): Promise<void> {
    if (this.generation === seen) {
      this.generation++;
      this.csrf = null;
      this.login = null;
    }
    return this.ensureLogin();
  }

  private async doLogin(): Promise<void> {
    const { http, portal } = this.ctx;
    http.jar.clear();
    const page = await http.text(joinUrl(this.base, "/login"));
    const token = page.text.match(CSRF)?.[1];
    if (!token) throw new PortalError("cerberus: no CSRF token on the login page");
    const after = await http.text(joinUrl(this.base, "/login/user"), {
      method: "POST",
      form: { r: "", username: portal.username ?? "", password: portal.password ?? "", Submit: "Sign in", csrftoken: token },
    });
    if (!isFilePage(after.url, after.text)) throw new PortalError(`cerberus: login rejected for user ${portal.username ?? ""}`);
    this.csrf = after.text.match(CSRF)?.[1] ?? token;
  }

  private async listDir(): Promise<DirRow[]> {
    await this.ensureLogin();
    for (let attempt = 0; attempt < 2; attempt++) {
      const seen = this.generation;
      const res = await this.ctx.http.text(joinUrl(this.base, "/file/json/dir"), {
        method: "POST",
        form: { sEcho: 1, iDisplayStart: 0, iDisplayLength: 100000, sSearch: "", cd: this.folder, csrftoken: this.csrf ?? "" },
        headers: { "x-requested-with": "XMLHttpRequest", accept: "application/json, text/javascript, */*" },
      });
      if (/json/i.test(res.contentType) || /^\s*[{[]/.test(res.text)) {
        try {
          const body = JSON.parse(res.text) as { aaData?: DirRow[] };
          return body.aaData ?? [];
        } catch {
          // fall through: treat as an expired session page
        }
      }
      this.ctx.log("info", "cerberus: session expired, logging in again", { chain: this.ctx.chain.slug });
      await this.relogin(seen);
    }
    throw new PortalError("cerberus: listing still not JSON after logging in again");
  }

  async list(_options: ListOptions): Promise<ListedFile[]> {
    const rows = await this.listDir();
    const prefix = this.folder === "/" ? "" : this.folder.replace(/^\/+|\/+$/g, "") + "/";
    const out: ListedFile[] = [];
    for (const row of rows) {
      const name = lastSegment(row.fname ?? row.name ?? "");
      if (!name || (row.type && row.type !== "file")) continue;
      const size = typeof row.size === "number" ? row.size : Number.parseInt(String(row.size ?? ""), 10);
      out.push(
        listedFile(name, joinUrl(this.base, "/file/d/" + prefix + encodeURIComponent(name)), {
          size: Number.isFinite(size) ? size : null,
          sizeExact: Number.isFinite(size),
          portalTime: row.ftime ?? row.time ?? null,
        }),
      );
    }
    return out;
  }

  async download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    await this.ensureLogin();
    for (let attempt = 0; attempt < 2; attempt++) {
      const seen = this.generation;
      const res = await this.ctx.http.send(file.url, {}, signal);
      if (res.ok && !/text\/html/i.test(res.headers.get("content-type") ?? "")) return res;
      if (res.ok || res.status === 401 || res.status === 403) {
        await res.body?.cancel().catch(() => {});
        await this.relogin(seen);
        continue;
      }
      return res;
    }
    throw new HttpError(`cerberus: ${file.fileName} still answers the login page`, null, false);
  }
}
