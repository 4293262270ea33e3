import type { Command } from "./command.ts";

// Frame only: the issue that owns `mehir keys` fills this in.
export const keysCommand: Command = {
  name: "keys",
  summary: "(not built yet)",
  help: "mehir keys: not built yet.",
  async run() {
    console.error("mehir keys: not built yet");
    return 1;
  },
};
