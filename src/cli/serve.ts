import { parseFlags, wantsHelp, type Command } from "./command.ts";
import { loadSettings, SettingsSchema, flagName, envName } from "../config.ts";
import { startServer } from "../server.ts";

function settingsHelp(): string {
  return Object.entries(SettingsSchema.shape)
    .map(([key, schema]) => `  ${(flagName(key) + " / " + envName(key)).padEnd(48)} ${(schema as { description?: string }).description ?? ""}`)
    .join("\n");
}

const FLAG_OPTIONS = Object.fromEntries(
  Object.keys(SettingsSchema.shape).map((key) => [flagName(key).slice(2), { type: "string" as const }]),
);

/** `--quota-free 5` → `{ quotaFree: "5" }`. */
function flagsToSettings(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [flag, value] of Object.entries(values)) {
    out[flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = value;
  }
  return out;
}

export const serveCommand: Command = {
  name: "serve",
  summary: "Run the API server (imports the embedded demo data on first start)",
  help: `Usage: mehir serve [--port 8080] [--host 0.0.0.0] [--data-dir DIR] [settings...]

Runs the HTTP API, docs (/docs), developer portal (/portal/) and widget (/widget/v1/loader.js).
With an empty data dir and MEHIR_SOURCE=demo (the default) it generates and imports the demo
dataset first; with MEHIR_SOURCE=live it fetches the chains' portals daily.

Settings (flag / environment variable; flags win):
${settingsHelp()}`,
  async run(args) {
    if (wantsHelp(args)) {
      console.log(this.help);
      return 0;
    }
    const { values } = parseFlags(args, FLAG_OPTIONS);
    const settings = loadSettings(process.env, flagsToSettings(values));
    const server = await startServer(settings);
    await server.stopped;
    return 0;
  },
};
