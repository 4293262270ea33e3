import type { Command } from "./command.ts";

// Frame only: the issue that owns `mehir demo` fills this in.
export const demoCommand: Command = {
  name: "demo",
  summary: "(not built yet)",
  help: "mehir demo: not built yet.",
  async run() {
    console.error("mehir demo: not built yet");
    return 1;
  },
};
