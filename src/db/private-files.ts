import { chmodSync, mkdirSync, statSync } from "node:fs";

/**
 * The data dir and the files in it that hold secrets (accounts.sqlite's key, password and session
 * hashes; the webhook key) readable by their owner only, whatever the umask (audit F11): the
 * folder is made 0700, the files are made 0600 when opened or created. A folder that already
 * exists keeps its mode (the operator's choice, e.g. systemd's StateDirectoryMode).
 */

/** Makes `dir` (and missing parents) 0700 if it does not exist. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Makes `path` 0600 if it exists and others or its group may use it. */
export function keepPrivate(path: string): void {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (mode & 0o177) chmodSync(path, 0o600);
}

/**
 * An SQLite database file and its -wal and -shm files 0600. Called right after the file is opened
 * (created), before WAL mode: SQLite creates -wal and -shm with the database file's mode, so the
 * ones made later are 0600 too; those left by an earlier version are tightened here.
 */
export function keepDatabasePrivate(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) keepPrivate(file);
}
