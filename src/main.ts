#!/usr/bin/env bun
/** The `mehir` binary: serve | import | fetch | demo | accounts | keys | backup. */
import { UsageError, type Command } from "./cli/command.ts";
import { SettingsError } from "./config.ts";
import { NewerDatabaseError } from "./db/migrate.ts";
import { serveCommand } from "./cli/serve.ts";
import { importCommand } from "./cli/import.ts";
import { fetchCommand } from "./cli/fetch.ts";
import { demoCommand } from "./cli/demo.ts";
import { accountsCommand } from "./cli/accounts.ts";
import { keysCommand } from "./cli/keys.ts";
import { backupCommand } from "./cli/backup.ts";
import { version } from "../package.json";

const COMMANDS: Command[] = [serveCommand, importCommand, fetchCommand, demoCommand, accountsCommand, keysCommand, backupCommand];

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "mehir — Israeli supermarket prices as a self-hosted API",
    "",
    "Usage: mehir <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Run `mehir <command> --help` for a command's options.",
  ].join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(usage());
    return name ? 0 : 2;
  }
  if (name === "--version" || name === "-v") {
    console.log(version);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`mehir: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`mehir ${name}: ${error.message}\nRun \`mehir ${name} --help\` for usage.`);
      return 2;
    }
    if (error instanceof SettingsError || error instanceof NewerDatabaseError) {
      console.error(`mehir ${name}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

if (import.meta.main) {
  // No top-level await: the binary is compiled to bytecode.
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
