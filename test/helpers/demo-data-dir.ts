/**
 * The embedded demo at scale 1, as `npm start` generates and imports it, made once and shared by
 * the test files that read it (the identity rule, the OpenAPI response examples): generating it
 * takes tens of seconds of CPU, which each of them used to spend again.
 *
 * The demo is built into a cache folder named by a hash of the code and data it comes from (src/,
 * data/, the build script, Bun's version) and its clock, so a later run of the same code reuses it. The first caller builds it in a child process holding an
 * flock on the folder's lock file; the others block on the same lock (the kernel wakes them: no
 * polling) and find it built. Each caller gets its own copy of prices.sqlite in a temp folder.
 * Entries unused for a day are removed.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PRICES_FILE } from "../../src/db/open.ts";

const ROOT = join(import.meta.dir, "../..");
const BUILD = join(import.meta.dir, "build-demo-data-dir.ts");
const CACHE_PREFIX = "mehir-test-demo-";
const UNUSED_FOR_MS = 86_400_000;

/** A hash of everything the demo data comes from, and of the clock it is generated at. */
function cacheKey(now: Date): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(`${Bun.version} ${now.toISOString()}\n`).update(readFileSync(BUILD));
  for (const folder of ["src", "data"]) {
    const files = [...new Bun.Glob("**/*").scanSync({ cwd: join(ROOT, folder) })].sort();
    for (const file of files) hasher.update(`${folder}/${file}\n`).update(readFileSync(join(ROOT, folder, file)));
  }
  return hasher.digest("hex").slice(0, 16);
}

/** Removes cache entries (and their locks) of other keys unused for a day. */
function removeUnused(keep: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(CACHE_PREFIX) || name.startsWith(keep)) continue;
    const path = join(tmpdir(), name);
    if (Date.now() - statSync(path).mtimeMs > UNUSED_FOR_MS) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * A new temp data dir holding the scale-1 demo generated and imported at `now` (prices.sqlite;
 * accounts.sqlite is made by whoever opens it). The caller removes it.
 * @example const dataDir = await demoDataDir(new Date("2026-11-22T08:00:00Z"));
 */
export async function demoDataDir(now: Date): Promise<string> {
  const key = cacheKey(now);
  const cache = join(tmpdir(), `${CACHE_PREFIX}${key}`);
  if (!existsSync(join(cache, PRICES_FILE))) {
    const build = Bun.spawn(["flock", `${cache}.lock`, process.execPath, BUILD, cache, now.toISOString()], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
    if (code !== 0) throw new Error(`building the demo data dir failed (${code}):\n${out}\n${err}`);
  }
  const dir = mkdtempSync(join(tmpdir(), "mehir-demo-copy-"));
  copyFileSync(join(cache, PRICES_FILE), join(dir, PRICES_FILE));
  const touched = new Date();
  utimesSync(cache, touched, touched);
  utimesSync(`${cache}.lock`, touched, touched);
  removeUnused(`${CACHE_PREFIX}${key}`);
  return dir;
}
