#!/usr/bin/env bun
/** The `mehir` binary: serve | import | fetch | status | demo | accounts | keys | backup | restore | export | compact. */
import { UsageError, type Command } from "./cli/command.ts";
import { SettingsError } from "./config.ts";
import { NewerDatabaseError } from "./db/migrate.ts";
import { serveCommand } from "./cli/serve.ts";
import { PortInUseError } from "./http/listen-error.ts";
import { importCommand } from "./cli/import.ts";
import { fetchCommand } from "./cli/fetch.ts";
import { statusCommand } from "./cli/status.ts";
import { demoCommand } from "./cli/demo.ts";
import { accountsCommand } from "./cli/accounts.ts";
import { keysCommand } from "./cli/keys.ts";
import { backupCommand } from "./cli/backup.ts";
import { exportCommand } from "./cli/export.ts";
import { NoMehirDataError } from "./cli/data-dir.ts";
import { fileErrorSentence } from "./cli/file-error.ts";
import { compactCommand } from "./cli/compact.ts";
import { restoreCommand } from "./cli/restore.ts";
import { version } from "../package.json";

const COMMANDS: Command[] = [serveCommand, importCommand, fetchCommand, statusCommand, demoCommand, accountsCommand, keysCommand, backupCommand, restoreCommand, exportCommand, compactCommand];

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
    if (error instanceof PortInUseError || error instanceof NoMehirDataError) {
      console.error(`mehir ${name}: ${error.message}`);
      return 1;
    }
    const line = operationalError(error);
    if (line) {
      console.error(`mehir ${name}: ${line}`);
      return 1;
    }
    throw error;
  }
}

/**
 * A failure of the environment rather than of mehir — a system or SQLite error such as a port in
 * use or a data dir that is a file or not writable — as one line (no stack, no source excerpt).
 */
function operationalError(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  if (typeof code !== "string" || !/^(E[A-Z]+|SQLITE_[A-Z_]+)$/.test(code)) return null;
  if (syscall !== "listen") {
    const sentence = fileErrorSentence(error);
    if (sentence) return sentence;
  }
  const message = error.message.includes(code) ? error.message : `${code}: ${error.message}`;
  return syscall === "listen" ? `${message} (settings --host / MEHIR_HOST, --port / MEHIR_PORT)` : message;
}

if (import.meta.main) {
  // No top-level await: the binary is compiled to bytecode.
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      // The stack as text: printing the Error itself shows a source excerpt (the whole minified line in the binary).
      console.error(error instanceof Error ? (error.stack ?? String(error)) : error);
      process.exit(1);
    },
  );
}
