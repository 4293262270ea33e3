import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { keepPrivate } from "../db/private-files.ts";

/** The key file beside accounts.sqlite; keep it with the database (backups copy both). */
export const SECRET_KEY_FILE = "webhook-secrets.key";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals webhook signing secrets at rest. A signing secret must be usable to sign, so unlike API
 * keys it cannot be kept only as a hash: it is encrypted with AES-256-GCM under a random key kept
 * in its own file (mode 0600) in the data dir, not in the database. A copy of accounts.sqlite
 * alone (a leaked backup, a stolen file) does not reveal the secrets. The alert's public id is the
 * additional authenticated data, so a sealed secret cannot be moved to another alert's row.
 * Sealed form: 12-byte IV ‖ ciphertext ‖ 16-byte tag.
 */
export class SecretBox {
  private loaded: Buffer | null = null;

  /** `load` runs on first use: a server that never seals a secret never writes a key file (a read-only or full data dir still serves). */
  private constructor(private readonly load: () => Buffer) {}

  private get key(): Buffer {
    return (this.loaded ??= this.load());
  }

  /**
   * The box of a data dir: the key file beside `accountsFile`, read or created (0600) when a secret is first sealed or opened.
   * An in-memory database (`:memory:`, tests) gets a key that lives as long as the process.
   */
  static beside(accountsFile: string): SecretBox {
    if (accountsFile === "" || accountsFile === ":memory:") return SecretBox.ephemeral();
    return new SecretBox(() => loadOrCreateKey(join(dirname(accountsFile), SECRET_KEY_FILE)));
  }

  static ephemeral(): SecretBox {
    const key = randomBytes(KEY_BYTES);
    return new SecretBox(() => key);
  }

  seal(plain: string, context: string): Uint8Array {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]);
  }

  /** The plain text, or throws when the sealed value was made under another key or altered. */
  open(sealed: Uint8Array, context: string): string {
    const bytes = Buffer.from(sealed);
    const iv = bytes.subarray(0, IV_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", this.key, iv);
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
  }
}

/** Reads the key file, or creates it with a fresh random key, readable by its owner only. */
function loadOrCreateKey(path: string): Buffer {
  if (!existsSync(path)) {
    try {
      // 'wx': never overwrite a key another process created meanwhile (its secrets would be lost).
      const fd = openSync(path, "wx", 0o600);
      try {
        writeSync(fd, randomBytes(KEY_BYTES).toString("base64") + "\n");
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  keepPrivate(path); // one copied in with a looser mode
  const key = Buffer.from(readFileSync(path, "utf8").trim(), "base64");
  if (key.length !== KEY_BYTES) throw new Error(`${path} is not a webhook secret key (expected ${KEY_BYTES} bytes, base64)`);
  return key;
}
