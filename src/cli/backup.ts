import type { Command } from "./command.ts";

// Frame only: the issue that owns `mehir backup` fills this in.
export const backupCommand: Command = {
  name: "backup",
  summary: "(not built yet)",
  help: "mehir backup: not built yet.",
  async run() {
    console.error("mehir backup: not built yet");
    return 1;
  },
};
