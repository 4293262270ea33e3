import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, type Server, type Socket } from "node:net";
import { TLSSocket } from "node:tls";

const TLS_DIR = join(import.meta.dir, "../../fixtures/tls");
/** The loopback server's self-signed certificate (test only). */
const tlsIdentity = () => ({ key: readFileSync(join(TLS_DIR, "test-only-key.pem")), cert: readFileSync(join(TLS_DIR, "test-only-cert.pem")) });

/** A loopback passive-mode FTP server serving an in-memory folder, for the Cerberus FTP fallback. */
export interface FakeFtp {
  url: string;
  commands: string[];
  /** Whether each accepted login happened over TLS, and transfers too. */
  logins: { secure: boolean; secureData: boolean }[];
  stop(): void;
}

/**
 * `tls`: "none" refuses AUTH TLS (as one project reports of the Cerberus host); "offer" accepts
 * AUTH TLS / PBSZ / PROT P (encrypted transfers) but also plain logins; "require" refuses a plain
 * login with vsftpd's `530 Non-anonymous sessions must use encryption.`
 */
export async function startFakeFtp(opts: {
  user: string;
  password: string;
  folders: Record<string, Record<string, Uint8Array>>;
  truncate?: string;
  tls?: "none" | "offer" | "require";
}): Promise<FakeFtp> {
  const tlsMode = opts.tls ?? "none";
  const commands: string[] = [];
  const logins: FakeFtp["logins"] = [];
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const control = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let user = "";
    let authed = false;
    let cwd = "/";
    let pending: Promise<Socket | TLSSocket> | null = null;
    let control: Socket | TLSSocket = socket;
    let secure = false;
    let protP = false;
    const reply = (line: string) => control.write(line + "\r\n");
    reply("220-Welcome");
    reply("220 fake cerberus");
    let buffer = "";
    const onData = async (chunk: Buffer | string) => {
      buffer += chunk.toString("utf8");
      let nl: number;
      while ((nl = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        commands.push(line.startsWith("PASS") ? "PASS ***" : line);
        const [cmd, ...rest] = line.split(" ");
        const arg = rest.join(" ");
        switch (cmd) {
          case "AUTH":
            if (tlsMode === "none") {
              reply("500 AUTH not understood");
              break;
            }
            reply("234 Proceed with negotiation.");
            socket.removeListener("data", onData);
            control = new TLSSocket(socket, { isServer: true, ...tlsIdentity() });
            control.on("data", onData);
            control.on("error", () => {});
            secure = true;
            break;
          case "PBSZ":
            reply(secure ? "200 PBSZ=0" : "503 PBSZ needs AUTH first");
            break;
          case "PROT":
            protP = secure && arg === "P";
            reply(secure ? "200 PROT now Private." : "503 PROT needs AUTH first");
            break;
          case "USER":
            if (tlsMode === "require" && !secure) {
              reply("530 Non-anonymous sessions must use encryption.");
              break;
            }
            user = arg;
            reply("331 password please");
            break;
          case "PASS":
            authed = user === opts.user && arg === opts.password;
            if (authed) logins.push({ secure, secureData: protP });
            reply(authed ? "230 logged in" : "530 login incorrect");
            break;
          case "TYPE":
            reply("200 ok");
            break;
          case "CWD":
            if (opts.folders[arg]) {
              cwd = arg;
              reply("250 ok");
            } else reply("550 no such folder");
            break;
          case "PASV": {
            let accept!: (s: Socket) => void;
            pending = new Promise((r) => (accept = r));
            const data = createServer((s) => {
              accept(protP ? new TLSSocket(s, { isServer: true, ...tlsIdentity() }) : s);
              data.close();
            });
            servers.push(data);
            data.listen(0, "127.0.0.1", () => {
              const port = (data.address() as { port: number }).port;
              reply(`227 Entering Passive Mode (10,0,0,1,${Math.floor(port / 256)},${port % 256})`);
            });
            break;
          }
          case "LIST": {
            if (!authed || !pending) return reply("425 no data connection");
            reply("150 here it comes");
            const s = await pending;
            const files = opts.folders[cwd] ?? {};
            const listing = Object.entries(files)
              .map(([name, bytes]) => `-rw-r--r--    1 ftp      ftp      ${String(bytes.length).padStart(8)} Nov 22 05:30 ${name}`)
              .join("\r\n");
            s.end(listing + "\r\n", () => reply("226 done"));
            pending = null;
            break;
          }
          case "RETR": {
            if (!authed || !pending) return reply("425 no data connection");
            const bytes = (opts.folders[cwd] ?? {})[arg];
            if (!bytes) return reply("550 not found");
            reply("150 sending");
            const s = await pending;
            pending = null;
            if (opts.truncate === arg) {
              s.end(Buffer.from(bytes.subarray(0, bytes.length >> 1)), () => reply("426 transfer aborted"));
            } else s.end(Buffer.from(bytes), () => reply("226 done"));
            break;
          }
          case "QUIT":
            reply("221 bye");
            control.end();
            break;
          default:
            reply("502 not implemented");
        }
      }
    };
    socket.on("data", onData);
  });
  servers.push(control);
  await new Promise<void>((r) => control.listen(0, "127.0.0.1", () => r()));
  const port = (control.address() as { port: number }).port;
  return {
    url: `ftp://127.0.0.1:${port}`,
    commands,
    logins,
    stop() {
      for (const s of sockets) s.destroy();
      for (const s of servers) s.close();
    },
  };
}
