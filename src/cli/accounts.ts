import type { Command } from "./command.ts";

// Frame only: the issue that owns `mehir accounts` fills this in.
export const accountsCommand: Command = {
  name: "accounts",
  summary: "(not built yet)",
  help: "mehir accounts: not built yet.",
  async run() {
    console.error("mehir accounts: not built yet");
    return 1;
  },
};
