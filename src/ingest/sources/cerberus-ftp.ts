import { FtpClient } from "./ftp.ts";
import { listedFile } from "./listing.ts";
import type { AdapterContext, ListedFile, ListOptions, PortalAdapter } from "./types.ts";

/**
 * Cerberus over FTP (`ftp://url.retail.publishedprices.co.il`, user = the chain's portal
 * username, usually an empty password), the fallback when the web portal fails. Plain FTP,
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

  constructor(
    private readonly ctx: AdapterContext,
    ftpUrl: string,
  ) {
    const url = new URL(ftpUrl);
    this.host = url.hostname;
    this.port = url.port ? Number(url.port) : 21;
  }

  private connect(): Promise<FtpClient> {
    this.connecting ??= (async () => {
      const client = new FtpClient(this.host, this.port, this.ctx.http.options.timeoutMs);
      await client.connect(this.ctx.portal.username ?? "anonymous", this.ctx.portal.password ?? "", this.ctx.portal.folder ?? "/");
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
      listedFile(e.name, `ftp://${this.host}:${this.port}/${encodeURIComponent(e.name)}`, { size: e.size, sizeExact: e.size != null }),
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
