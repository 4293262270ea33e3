import { parseArgs, type ParseArgsConfig } from "node:util";

/** One `mehir <name>` command. `run` returns the process exit code. */
export interface Command {
  name: string;
  summary: string;
  /** Full `--help` text. */
  help: string;
  run(args: string[]): Promise<number>;
}

export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Parses a command's flags strictly; unknown flags and missing values become a UsageError
 * with a one-line message.
 */
export function parseFlags<T extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0]!);
  }
}

export function wantsHelp(args: string[]): boolean {
  return args.includes("--help") || args.includes("-h");
}
