/**
 * Reads a password for a command, never from its arguments (they show in `ps` and shell history):
 * on a terminal, a prompt with the typing hidden, asked twice; otherwise the first line of stdin
 * (`printf '%s\n' "$PW" | mehir accounts set-password E`).
 */
export async function readPassword(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) return firstLine(await new Response(Bun.stdin.stream()).text());
  const first = await hiddenLine(`${prompt}: `);
  const again = await hiddenLine(`${prompt} (again): `);
  if (first !== again) throw new PasswordInputError("the two passwords differ");
  return first;
}

export class PasswordInputError extends Error {
  override name = "PasswordInputError";
}

/** @example firstLine("secret one\r\nignored") // "secret one" */
export function firstLine(text: string): string {
  return text.split(/\r?\n/, 1)[0] ?? "";
}

/** One line typed on the terminal, not echoed (raw mode; Backspace works, Ctrl-C aborts). */
function hiddenLine(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let typed = "";
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") return done();
        if (char === "\u0003") return done(new PasswordInputError("cancelled"));
        if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}
