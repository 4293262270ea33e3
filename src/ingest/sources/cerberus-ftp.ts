import { FtpClient, FtpTlsRequiredError, type FtpSecurity } from "./ftp.ts";
import { listedFile } from "./listing.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";

/**
 * True for the FTP ways in (`ftp://`, `ftps://` = explicit AUTH TLS from the start).
 * @example isFtpUrl("ftp://url.retail.publishedprices.co.il") // true
 */
export function isFtpUrl(url: string): boolean {
  return /^ftps?:/i.test(url);
}

/**
 * Cerberus over FTP (`ftp://url.retail.publishedprices.co.il`, user = the chain's portal
 * username, usually an empty password), the fallback when the web portal fails. Starts plain
 * and logs in again over explicit TLS when the server demands it (`ftps://` starts with TLS);
 * passive mode, one connection per chain; downloads run one at a time.
 *
 * @example new CerberusFtpAdapter(ctx, "ftp://url.retail.publishedprices.co.il").list({ date: "2026-11-22", deltas: false })
 */
export class CerberusFtpAdapter implements PortalAdapter {
  readonly family = "cerberus" as const;
  private client: FtpClient | null = null;
  private connecting: Promise<FtpClient> | null = null;
  private readonly host: string;
  private readonly port: number;
  private security: FtpSecurity;

  constructor(
    private readonly ctx: AdapterContext,
    ftpUrl: string,
  ) {
    const url = new URL(ftpUrl);
    this.host = url.hostname;
    this.port = url.port ? Number(url.port) : 21;
    this.security = url.protocol === "ftps:" ? "tls" : "plain";
  }

  private async login(security: FtpSecurity): Promise<FtpClient> {
    const client = new FtpClient(this.host, this.port, this.ctx.http.options.timeoutMs, security);
    try {
      await client.connect(this.ctx.portal.username ?? "anonymous", this.ctx.portal.password ?? "", this.ctx.portal.folder ?? "/");
      return client;
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
  }

  private connect(): Promise<FtpClient> {
    this.connecting ??= (async () => {
      let client: FtpClient;
      try {
        client = await this.login(this.security);
      } catch (error) {
        if (!(error instanceof FtpTlsRequiredError)) throw error;
        this.ctx.log("info", "cerberus ftp: server requires TLS, logging in again with AUTH TLS", { chain: this.ctx.chain.slug });
        this.security = "tls";
        client = await this.login("tls");
      }
      this.client = client;
      return client;
    })().catch((error) => {
      this.connecting = null;
      throw error;
    });
    return this.connecting;
  }

  async list(_options: ListOptions): Promise<ListedFile[]> {
    const client = await this.connect();
    const entries = await client.list();
    return entries.map((e) =>
      listedFile(e.name, `${this.security === "tls" ? "ftps" : "ftp"}://${this.host}:${this.port}/${encodeURIComponent(e.name)}`, { size: e.size, sizeExact: e.size != null }),
    );
  }

  async download(file: ListedFile, signal?: AbortSignal): Promise<Response> {
    const client = await this.connect();
    let inner: ReadableStream<Uint8Array>;
    try {
      inner = await client.retrieve(file.fileName, signal);
    } catch (error) {
      await this.close().catch(() => {});
      throw error;
    }
    // A transfer that breaks leaves the control connection in an unknown state: start over next time.
    const reader = inner.getReader();
    const stream = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
          await this.close().catch(() => {});
        }
      },
      cancel: async () => {
        await reader.cancel().catch(() => {});
        await this.close().catch(() => {});
      },
    });
    return new Response(stream, { status: 200, headers: file.size != null ? { "content-length": String(file.size) } : {} });
  }

  async close(): Promise<void> {
    await this.client?.close();
    this.client = null;
    this.connecting = null;
  }
}
