/**
 * Progress lines of an import run by the server (the live fetch's import, the demo first start):
 * an `onProgress` for runImportInWorker/importPaths that writes `import: progress` with the files
 * done, the total and the current file — for the first file, then at most every `intervalMs`, and
 * for the last file — so a long import shows in the log while it runs, not only in its summary.
 *
 * @example runImportInWorker({ ..., onProgress: importProgressLogger("fetch", (msg, fields) => log.info(msg, fields)) })
 */
export function importProgressLogger(
  origin: string,
  emit: (msg: string, fields: Record<string, unknown>) => void,
  intervalMs = 10_000,
  clock: () => number = () => performance.now(),
): (done: number, total: number, file: string) => void {
  let last = -Infinity;
  return (done, total, file) => {
    const now = clock();
    if (done !== 1 && done < total && now - last < intervalMs) return;
    last = now;
    emit("import: progress", { origin, files_done: done, files_total: total, percent: total > 0 ? Math.floor((done * 100) / total) : 100, file });
  };
}
