import { parseFlags, UsageError, wantsHelp, type Command } from "./command.ts";
import { withAccountsDb } from "./accounts-db.ts";
import { AccountError, findAccountByEmail } from "../accounts/accounts.ts";
import { createKey, KeyError, listKeys, maskedKey, resolveKey, revokeKeyById } from "../accounts/keys.ts";
import { parseOriginList } from "../accounts/origins.ts";
import type { KeyKind } from "../accounts/key-format.ts";

const HELP = `Usage: mehir keys <create|list|revoke> [options]

  mehir keys create --email E --kind live|test|publishable [--origin URL]... [--name N]
        Create a key; the key is printed once, as the last line. --origin (repeatable)
        restricts a publishable key to those page origins (none = any origin).
  mehir keys list --email E
        The account's keys (masked), with kind, name, origins, and revoked ones marked.
  mehir keys revoke KEY_OR_PREFIX
        Revoke by the whole key, its prefix (sk_live_AbC1) or masked form (sk_live_AbC1…wxYz).

Options:
  --data-dir DIR   Data dir (default MEHIR_DATA_DIR or ./mehir-data)
  --help           This text

A running server sees created and revoked keys within a second.`;

const KINDS: readonly KeyKind[] = ["live", "test", "publishable"];

function accountId(db: Parameters<typeof findAccountByEmail>[0], email: string): number {
  const account = findAccountByEmail(db, email);
  if (!account) throw new AccountError(`no account for ${email} (create it with mehir accounts create --email ${email})`);
  return account.id;
}

/** `mehir keys …`: the operator's key commands. Returns the exit code. */
export async function runKeys(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || wantsHelp(args)) {
    console.log(HELP);
    return sub || wantsHelp(args) ? 0 : 2;
  }
  try {
    switch (sub) {
      case "create": {
        const { values } = parseFlags(rest, {
          email: { type: "string" },
          kind: { type: "string" },
          origin: { type: "string", multiple: true },
          name: { type: "string" },
          "data-dir": { type: "string" },
        });
        if (!values.email) throw new UsageError("--email is required");
        const kind = values.kind as KeyKind | undefined;
        if (!kind || !KINDS.includes(kind)) throw new UsageError("--kind must be live, test or publishable");
        const origins = parseOriginList(values.origin ?? []);
        if (!origins.ok) throw new UsageError(`--origin: not an origin (scheme://host[:port]): ${origins.invalid}`);
        if (kind !== "publishable" && origins.origins.length > 0) throw new UsageError("--origin applies to publishable keys only");
        const { key, record } = withAccountsDb(values["data-dir"], (db) =>
          createKey(db, { accountId: accountId(db, values.email!), kind, name: values.name, origins: origins.origins }, new Date()),
        );
        console.log(`created ${kind} key ${maskedKey(record)} (id ${record.id}) for ${values.email}`);
        if (record.allowedOrigins.length > 0) console.log(`allowed origins: ${record.allowedOrigins.join(" ")}`);
        console.log("the key is shown only now; store it safely:");
        console.log(key);
        return 0;
      }
      case "list": {
        const { values } = parseFlags(rest, { email: { type: "string" }, "data-dir": { type: "string" } });
        if (!values.email) throw new UsageError("--email is required");
        const keys = withAccountsDb(values["data-dir"], (db) => listKeys(db, accountId(db, values.email!)));
        if (keys.length === 0) console.log("no keys");
        for (const k of keys) {
          const origins = k.kind === "publishable" ? (k.allowedOrigins.length ? k.allowedOrigins.join(",") : "any origin") : "-";
          const status = k.revokedAt ? `revoked ${k.revokedAt}` : "active";
          console.log(`${maskedKey(k)}\t${k.kind}\t${k.name ?? "-"}\t${origins}\t${status}\tcreated ${k.createdAt}`);
        }
        return 0;
      }
      case "revoke": {
        const { values, positionals } = parseFlags(rest, { "data-dir": { type: "string" } }, true);
        if (positionals.length !== 1) throw new UsageError("give one key or key prefix");
        const revoked = withAccountsDb(values["data-dir"], (db) => {
          const key = resolveKey(db, positionals[0]!);
          revokeKeyById(db, key.id, new Date());
          return key;
        });
        console.log(`revoked ${revoked.kind} key ${maskedKey(revoked)} (id ${revoked.id})`);
        return 0;
      }
      default:
        throw new UsageError(`unknown subcommand "${sub}" (create, list or revoke)`);
    }
  } catch (error) {
    if (error instanceof AccountError || error instanceof KeyError) {
      console.error(`mehir keys: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

export const keysCommand: Command = {
  name: "keys",
  summary: "Create, list and revoke API keys",
  help: HELP,
  run: runKeys,
};
