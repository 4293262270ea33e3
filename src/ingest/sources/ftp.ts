import { createConnection, isIP, type Socket } from "node:net";
import { passiveAddress } from "./link-guard.ts";
import { connect as tlsConnect, type TLSSocket } from "node:tls";

/**
 * A minimal passive-mode FTP client. Plain FTP, or explicit FTPS (`AUTH TLS`, then `PBSZ 0` /
 * `PROT P` so transfers are encrypted too): one public project reports the Cerberus retail host
 * refuses AUTH TLS, while the reference scraper logs in over FTP_TLS — the adapter starts plain
 * and switches when the server demands TLS. The server's certificate is not verified (as the
 * reference scrapers do): the credentials are public and every file's integrity is checked
 * (gzip/ZIP) before it is kept. Commands run one at a time over a single control connection.
 */

export type FtpSecurity = "plain" | "tls";

/** The server refused a plain login and asks for TLS (e.g. vsftpd `530 Non-anonymous sessions must use encryption`). */
export class FtpTlsRequiredError extends Error {
  override name = "FtpTlsRequiredError";
}

export interface FtpEntry {
  name: string;
  size: number | null;
  /** The listing's time column, verbatim. */
  time: string | null;
}

interface Reply {
  code: number;
  text: string;
}

export class FtpError extends Error {
  override name = "FtpError";
}

export class FtpClient {
  private socket: Socket | null = null;
  private buffer = "";
  private lines: string[] = [];
  private waiters: ((line: string | Error) => void)[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  /** Transfers run over TLS too (PROT P accepted). */
  private secureData = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly timeoutMs: number,
    readonly security: FtpSecurity = "plain",
  ) {}

  private readonly onData = (chunk: string | Buffer) => {
    this.buffer += typeof chunk === "string" ? chunk : chunk.toString("utf8");
    let nl: number;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, "");
      this.buffer = this.buffer.slice(nl + 1);
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    }
  };

  private tlsOptions() {
    // SNI only for names, not addresses.
    return { rejectUnauthorized: false, ...(isIP(this.host) ? {} : { servername: this.host }) };
  }

  /** AUTH TLS on the control connection, then PBSZ 0 / PROT P (data in the clear when PROT P is refused). */
  private async startTls(): Promise<void> {
    await this.command("AUTH TLS", [234]);
    const plain = this.socket!;
    plain.removeListener("data", this.onData);
    const secure = await new Promise<TLSSocket>((resolve, reject) => {
      const timer = setTimeout(() => reject(new FtpError(`ftp: TLS handshake timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
      const s = tlsConnect({ socket: plain, ...this.tlsOptions() }, () => {
        clearTimeout(timer);
        resolve(s);
      });
      s.once("error", (e) => {
        clearTimeout(timer);
        reject(new FtpError(`ftp: TLS: ${e.message}`));
      });
    });
    secure.on("data", this.onData);
    secure.on("error", (e) => this.fail(new FtpError(`ftp: ${e.message}`)));
    this.socket = secure;
    await this.command("PBSZ 0", [200]);
    const prot = await this.send("PROT P");
    this.secureData = prot.code === 200;
  }

  /** Serialises operations on the one control connection. */
  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => {});
    return next;
  }

  private nextLine(): Promise<string> {
    const ready = this.lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new FtpError(`ftp: no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      this.waiters.push((line) => {
        clearTimeout(timer);
        if (line instanceof Error) reject(line);
        else resolve(line);
      });
    });
  }

  private async reply(): Promise<Reply> {
    const first = await this.nextLine();
    const code = Number(first.slice(0, 3));
    if (!Number.isFinite(code)) throw new FtpError(`ftp: bad reply "${first}"`);
    let text = first.slice(4);
    if (first[3] === "-") {
      for (;;) {
        const line = await this.nextLine();
        text += "\n" + line;
        if (line.startsWith(`${code} `)) break;
      }
    }
    return { code, text };
  }

  private async send(line: string): Promise<Reply> {
    this.socket!.write(line + "\r\n");
    return this.reply();
  }

  private async command(line: string, expect: number[]): Promise<Reply> {
    const r = await this.send(line);
    if (!expect.includes(r.code)) {
      const shown = line.startsWith("PASS") ? "PASS ***" : line;
      throw new FtpError(`ftp: ${shown} → ${r.code} ${r.text}`);
    }
    return r;
  }

  private fail(error: Error): void {
    for (const w of this.waiters.splice(0)) w(error);
  }

  /**
   * Connects and logs in (after AUTH TLS when `security` is "tls"); `folder` is entered with CWD
   * when not "/". A plain login refused for want of TLS throws FtpTlsRequiredError.
   */
  connect(user: string, password: string, folder: string): Promise<void> {
    return this.exclusive(async () => {
      await new Promise<void>((resolve, reject) => {
        const socket = createConnection({ host: this.host, port: this.port });
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new FtpError(`ftp: connect timed out after ${this.timeoutMs} ms`));
        }, this.timeoutMs);
        socket.once("connect", () => {
          clearTimeout(timer);
          resolve();
        });
        socket.once("error", (e) => {
          clearTimeout(timer);
          reject(new FtpError(`ftp: ${e.message}`));
          this.fail(new FtpError(`ftp: ${e.message}`));
        });
        socket.on("close", () => this.fail(new FtpError("ftp: connection closed")));
        socket.on("data", this.onData);
        this.socket = socket;
      });
      const greeting = await this.reply();
      if (greeting.code !== 220) throw new FtpError(`ftp: greeting ${greeting.code} ${greeting.text}`);
      if (this.security === "tls") await this.startTls();
      const login = async (line: string, expect: number[]) => {
        const r = await this.send(line);
        if (expect.includes(r.code)) return r;
        const shown = line.startsWith("PASS") ? "PASS ***" : line;
        if (this.security === "plain" && (r.code === 534 || ((r.code === 530 || r.code === 550 || r.code === 421) && /tls|ssl|secur|encrypt/i.test(r.text)))) {
          throw new FtpTlsRequiredError(`ftp: ${shown} → ${r.code} ${r.text}`);
        }
        throw new FtpError(`ftp: ${shown} → ${r.code} ${r.text}`);
      };
      const u = await login(`USER ${user}`, [230, 331]);
      if (u.code === 331) await login(`PASS ${password}`, [230, 202]);
      await this.command("TYPE I", [200]);
      if (folder && folder !== "/") await this.command(`CWD ${folder}`, [250]);
    });
  }

  /**
   * Opens a passive data connection to the address the PASV reply gives (a server behind
   * several addresses expects it), unless that address is private or loopback and not the
   * control connection's own: then to the control host (servers behind NAT announce their
   * inside address; see passiveAddress).
   */
  private async passive(): Promise<Socket> {
    const r = await this.command("PASV", [227]);
    const m = r.text.match(/(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)/);
    if (!m) throw new FtpError(`ftp: bad PASV reply ${r.text}`);
    const port = Number(m[5]) * 256 + Number(m[6]);
    const host = passiveAddress(this.host, `${Number(m[1])}.${Number(m[2])}.${Number(m[3])}.${Number(m[4])}`, this.socket?.remoteAddress);
    const data = await new Promise<Socket>((resolve, reject) => {
      const data = createConnection({ host, port });
      const timer = setTimeout(() => {
        data.destroy();
        reject(new FtpError("ftp: data connection timed out"));
      }, this.timeoutMs);
      data.once("connect", () => {
        clearTimeout(timer);
        resolve(data);
      });
      data.once("error", (e) => {
        clearTimeout(timer);
        reject(new FtpError(`ftp: data connection: ${e.message}`));
      });
    });
    if (!this.secureData) return data;
    // The handshake completes once the server starts the transfer (after LIST/RETR); the control
    // connection's session is offered for servers that demand its reuse.
    const session = (this.socket as TLSSocket).getSession?.();
    return tlsConnect({ socket: data, ...this.tlsOptions(), ...(session ? { session } : {}) });
  }

  /** LIST of the current folder, parsed (Unix and IIS styles). */
  list(): Promise<FtpEntry[]> {
    return this.exclusive(async () => {
      const data = await this.passive();
      const chunks: Buffer[] = [];
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = new Promise<void>((resolve, reject) => {
        data.on("data", (c: Buffer) => chunks.push(c));
        data.once("end", () => resolve());
        data.once("error", (e) => reject(new FtpError(`ftp: ${e.message}`)));
        timer = setTimeout(() => {
          data.destroy();
          reject(new FtpError(`ftp: listing not received within ${this.timeoutMs} ms`));
        }, this.timeoutMs);
      });
      done.catch(() => {});
      try {
        await this.command("LIST", [125, 150]);
        await done;
      } finally {
        clearTimeout(timer);
      }
      await this.reply(); // 226
      return parseFtpList(Buffer.concat(chunks).toString("utf8"));
    });
  }

  /**
   * RETR as a stream. The control connection stays busy until the stream ends; a transfer
   * that does not end with 226 errors the stream (a truncated file).
   */
  retrieve(name: string, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    let release!: () => void;
    const busy = new Promise<void>((r) => (release = r));
    return new Promise((resolveStream, rejectStream) => {
      this.exclusive(async () => {
        try {
          const data = await this.passive();
          await this.command(`RETR ${name}`, [125, 150]);
          const stream = new ReadableStream<Uint8Array>({
            start: (controller) => {
              let settled = false;
              const finish = (error?: Error) => {
                if (settled) return;
                settled = true;
                signal?.removeEventListener("abort", abort);
                if (error) {
                  data.destroy();
                  controller.error(error);
                  release();
                  return;
                }
                this.reply()
                  .then((r) => (r.code === 226 || r.code === 250 ? controller.close() : controller.error(new FtpError(`ftp: transfer ended ${r.code} ${r.text}`))))
                  .catch((e) => controller.error(e))
                  .finally(release);
              };
              const abort = () => finish(new FtpError("ftp: download aborted"));
              signal?.addEventListener("abort", abort, { once: true });
              data.on("data", (c: Buffer) => controller.enqueue(new Uint8Array(c)));
              data.once("error", (e) => finish(new FtpError(`ftp: ${e.message}`)));
              data.once("end", () => finish());
            },
          });
          resolveStream(stream);
        } catch (error) {
          release();
          rejectStream(error);
        }
        await busy;
      });
    });
  }

  /** Ends the session at once (also while a command hangs). */
  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (!socket) return;
    try {
      socket.end("QUIT\r\n");
    } catch {
      // already gone
    }
    socket.destroy();
    this.fail(new FtpError("ftp: closed"));
  }
}

/**
 * Parses LIST output: Unix (`-rw-r--r-- 1 ftp ftp 1234 Nov 22 05:30 name`) or IIS
 * (`11-22-26  05:30AM  1234 name`); directories are skipped.
 * @example parseFtpList("-rw-r--r-- 1 ftp ftp 1234 Nov 22 05:30 a.gz") // [{ name: "a.gz", size: 1234, time: "Nov 22 05:30" }]
 */
export function parseFtpList(text: string): FtpEntry[] {
  const out: FtpEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || /^total\s+\d+$/i.test(line)) continue;
    const unix = line.match(/^([-dl])[rwxsStT-]{9}\S*\s+\d+\s+\S+\s+\S+\s+(\d+)\s+(\w{3}\s+\d{1,2}\s+[\d:]+)\s+(.+)$/);
    if (unix) {
      if (unix[1] !== "-") continue;
      out.push({ name: unix[4]!, size: Number(unix[2]), time: unix[3]! });
      continue;
    }
    const iis = line.match(/^(\d{2}-\d{2}-\d{2,4}\s+\d{1,2}:\d{2}[AP]M)\s+(<DIR>|\d+)\s+(.+)$/i);
    if (iis) {
      if (iis[2] === "<DIR>") continue;
      out.push({ name: iis[3]!, size: Number(iis[2]), time: iis[1]! });
      continue;
    }
    if (!/\s/.test(line)) out.push({ name: line, size: null, time: null });
  }
  return out;
}
