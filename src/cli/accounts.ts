import { parseFlags, UsageError, wantsHelp, type Command } from "./command.ts";
import { withAccountsDb } from "./accounts-db.ts";
import { AccountError, createAccount, isPlan, listAccounts, setPlan } from "../accounts/accounts.ts";

const HELP = `Usage: mehir accounts <create|set-plan|list> [options]

  mehir accounts create --email E [--plan free|basic|pro]   Create an account (no portal password)
  mehir accounts set-plan E free|basic|pro                   Change an account's plan (takes effect within a second)
  mehir accounts list                                        Every account with its plan and active keys

Options:
  --data-dir DIR   Data dir (default MEHIR_DATA_DIR or ./mehir-data)
  --help           This text

Accounts made here have no password: they are managed with mehir keys. Developers who sign
up in the portal (/portal/) choose their own password; upgrade them with set-plan.`;

/** `mehir accounts …`: the operator's account commands. Returns the exit code. */
export async function runAccounts(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || wantsHelp(args)) {
    console.log(HELP);
    return sub || wantsHelp(args) ? 0 : 2;
  }
  try {
    switch (sub) {
      case "create": {
        const { values } = parseFlags(rest, { email: { type: "string" }, plan: { type: "string" }, "data-dir": { type: "string" } });
        if (!values.email) throw new UsageError("--email is required");
        const plan = values.plan ?? "free";
        if (!isPlan(plan)) throw new UsageError(`--plan must be free, basic or pro (got ${JSON.stringify(plan)})`);
        const account = withAccountsDb(values["data-dir"], (db) => createAccount(db, { email: values.email!, plan }, new Date()));
        console.log(`created account ${account.email} (id ${account.id}, plan ${account.plan})`);
        return 0;
      }
      case "set-plan": {
        const { values, positionals } = parseFlags(rest, { "data-dir": { type: "string" } }, true);
        if (positionals.length !== 2) throw new UsageError("give an email and a plan: mehir accounts set-plan E free|basic|pro");
        const [email, plan] = positionals as [string, string];
        if (!isPlan(plan)) throw new UsageError(`the plan must be free, basic or pro (got ${JSON.stringify(plan)})`);
        const account = withAccountsDb(values["data-dir"], (db) => setPlan(db, email, plan));
        console.log(`${account.email} is now on the ${account.plan} plan`);
        return 0;
      }
      case "list": {
        const { values } = parseFlags(rest, { "data-dir": { type: "string" } });
        const accounts = withAccountsDb(values["data-dir"], (db) => listAccounts(db));
        if (accounts.length === 0) console.log("no accounts");
        for (const a of accounts) console.log(`${a.id}\t${a.email}\t${a.plan}\t${a.activeKeys} active key(s)\tcreated ${a.createdAt}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown subcommand "${sub}" (create, set-plan or list)`);
    }
  } catch (error) {
    if (error instanceof AccountError) {
      console.error(`mehir accounts: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

export const accountsCommand: Command = {
  name: "accounts",
  summary: "Create accounts, change plans, list accounts",
  help: HELP,
  run: runAccounts,
};
