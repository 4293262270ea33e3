import { parseFlags, UsageError, wantsHelp, type Command } from "./command.ts";
import { withAccountsDb } from "./accounts-db.ts";
import { AccountError, createAccount, findAccountByEmail, isPlan, listAccounts, setPasswordHash, setPlan } from "../accounts/accounts.ts";
import { hashPassword, MAX_PASSWORD, MIN_PASSWORD } from "../accounts/passwords.ts";
import { deleteOtherSessions } from "../modules/portal/sessions.ts";
import { PasswordInputError, readPassword } from "./read-password.ts";

const HELP = `Usage: mehir accounts <create|set-plan|set-password|list> [options]

  mehir accounts create --email E [--plan free|basic|pro]   Create an account (no portal password yet);
        [--create]                                         --create: in a data dir no server has started yet
  mehir accounts set-plan E free|basic|pro                   Change an account's plan (takes effect within a second)
  mehir accounts set-password E                              Set an account's portal password (signs its sessions out)
  mehir accounts list                                        Every account with its plan and active keys

Options:
  --data-dir DIR   Data dir (default MEHIR_DATA_DIR or ./mehir-data): the running server's; a
                   folder with no mehir data is refused (a typo would make a new, empty one)
  --help           This text

Accounts made here have no portal password until set-password gives them one: it reads the
password from a hidden prompt on a terminal, else from the first line of stdin — never from the
command line (printf '%s\\n' "$PW" | mehir accounts set-password E). Developers who sign up in the
portal (/portal/) choose their own password and change it there; upgrade them with set-plan.`;

/** How the password is read (a test hands its own). */
export interface AccountsIo {
  readPassword(prompt: string): Promise<string>;
}

/** `mehir accounts …`: the operator's account commands. Returns the exit code. */
export async function runAccounts(args: string[], io: AccountsIo = { readPassword }): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || wantsHelp(args)) {
    console.log(HELP);
    return sub || wantsHelp(args) ? 0 : 2;
  }
  try {
    switch (sub) {
      case "create": {
        const { values } = parseFlags(rest, { email: { type: "string" }, plan: { type: "string" }, "data-dir": { type: "string" }, create: { type: "boolean" } });
        if (!values.email) throw new UsageError("--email is required");
        const plan = values.plan ?? "free";
        if (!isPlan(plan)) throw new UsageError(`--plan must be free, basic or pro (got ${JSON.stringify(plan)})`);
        const account = withAccountsDb(values["data-dir"], (db) => createAccount(db, { email: values.email!, plan }, new Date()), { create: values.create, creatable: true });
        console.log(`created account ${account.email} (id ${account.id}, plan ${account.plan})`);
        console.log(`to sign in to the portal, give it a password: mehir accounts set-password ${account.email}`);
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
      case "set-password": {
        const { values, positionals } = parseFlags(rest, { "data-dir": { type: "string" } }, true);
        if (positionals.length !== 1) throw new UsageError("give one email: mehir accounts set-password E (the password is read from stdin or a prompt)");
        const email = positionals[0]!;
        // The account is checked before the password is asked for: no typing for a typo.
        if (!withAccountsDb(values["data-dir"], (db) => findAccountByEmail(db, email))) throw new AccountError(`no account for ${email}`);
        const password = await io.readPassword(`new portal password for ${email}`);
        if (password.length < MIN_PASSWORD) throw new AccountError(`the password is too short: at least ${MIN_PASSWORD} characters`);
        if (password.length > MAX_PASSWORD) throw new AccountError(`the password is too long: at most ${MAX_PASSWORD} characters`);
        const passwordHash = await hashPassword(password);
        const ended = withAccountsDb(values["data-dir"], (db) => {
          const account = setPasswordHash(db, email, passwordHash);
          return deleteOtherSessions(db, account.id, null);
        });
        console.log(`portal password set for ${email.trim().toLowerCase()}${ended > 0 ? ` (${ended} portal session(s) signed out)` : ""}`);
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
        throw new UsageError(`unknown subcommand "${sub}" (create, set-plan, set-password or list)`);
    }
  } catch (error) {
    if (error instanceof AccountError || error instanceof PasswordInputError) {
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
