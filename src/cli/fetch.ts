import type { Command } from "./command.ts";

// Frame only: the issue that owns `mehir fetch` fills this in.
export const fetchCommand: Command = {
  name: "fetch",
  summary: "(not built yet)",
  help: "mehir fetch: not built yet.",
  async run() {
    console.error("mehir fetch: not built yet");
    return 1;
  },
};
