import type { Command } from "./command.ts";

// Frame only: the issue that owns `mehir import` fills this in.
export const importCommand: Command = {
  name: "import",
  summary: "(not built yet)",
  help: "mehir import: not built yet.",
  async run() {
    console.error("mehir import: not built yet");
    return 1;
  },
};
