import { createServer, type Server, type Socket } from "node:net";

/** A loopback passive-mode FTP server serving an in-memory folder, for the Cerberus FTP fallback. */
export interface FakeFtp {
  url: string;
  commands: string[];
  stop(): void;
}

export async function startFakeFtp(opts: { user: string; password: string; folders: Record<string, Record<string, Uint8Array>>; truncate?: string }): Promise<FakeFtp> {
  const commands: string[] = [];
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const control = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let user = "";
    let authed = false;
    let cwd = "/";
    let pending: Promise<Socket> | null = null;
    const reply = (line: string) => socket.write(line + "\r\n");
    reply("220-Welcome");
    reply("220 fake cerberus");
    let buffer = "";
    socket.on("data", async (chunk) => {
      buffer += chunk.toString("utf8");
      let nl: number;
      while ((nl = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        commands.push(line.startsWith("PASS") ? "PASS ***" : line);
        const [cmd, ...rest] = line.split(" ");
        const arg = rest.join(" ");
        switch (cmd) {
          case "USER":
            user = arg;
            reply("331 password please");
            break;
          case "PASS":
            authed = user === opts.user && arg === opts.password;
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
              accept(s);
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
            socket.end();
            break;
          default:
            reply("502 not implemented");
        }
      }
    });
  });
  servers.push(control);
  await new Promise<void>((r) => control.listen(0, "127.0.0.1", () => r()));
  const port = (control.address() as { port: number }).port;
  return {
    url: `ftp://127.0.0.1:${port}`,
    commands,
    stop() {
      for (const s of sockets) s.destroy();
      for (const s of servers) s.close();
    },
  };
}
