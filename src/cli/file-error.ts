/**
 * A system or SQLite error about a file as one sentence a person can act on — never the raw
 * `EEXIST: file already exists, mkdir '…'` or `SQLITE_CANTOPEN: unable to open database file`.
 * Null for errors that are not about files.
 * @example fileErrorSentence(Object.assign(new Error("…"), { code: "EEXIST", syscall: "mkdir", path: "/etc/passwd" })) // "/etc/passwd is a file, not a folder"
 */
export function fileErrorSentence(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const { code, path, syscall } = error as { code?: unknown; path?: unknown; syscall?: unknown };
  const where = typeof path === "string" ? path : "a file of the data dir";
  switch (code) {
    case "EEXIST":
      return syscall === "mkdir" ? `${where} is a file, not a folder` : `${where} already exists`;
    case "ENOTDIR":
      return `part of ${where} is a file, not a folder`;
    case "ENOENT":
      return `no such file or folder: ${where}`;
    case "EACCES":
    case "EPERM":
      return `no permission to ${syscall === "open" || syscall === "scandir" ? "read" : "write"} ${where}`;
    case "EROFS":
      return `${where} is on a read-only file system`;
    case "ENOSPC":
      return `the disk is full (writing ${where})`;
    case "EISDIR":
      return `${where} is a folder, not a file`;
    case "SQLITE_CANTOPEN":
      return "cannot open a database of the data dir: check that it is a folder you may write to";
    case "SQLITE_READONLY":
      return "a database of the data dir is read-only: check the files' owner and permissions";
    case "SQLITE_NOTADB":
    case "SQLITE_CORRUPT":
      return "a file of the data dir is not a mehir database (or is damaged): check --data-dir";
    case "SQLITE_FULL":
      return "the disk is full (writing a database of the data dir)";
    default:
      return null;
  }
}
