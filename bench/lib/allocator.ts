/**
 * The allocator settings the server's launchers give it (`npm start`, deploy/*.service; README
 * "Memory allocator"), for the benches that start a server or an import as it is deployed
 * (bench/demo.ts, bench/import.ts, bench/http.ts); test/deploy/allocator.test.ts keeps them equal.
 * Each is read by mimalloc when a process starts, so a bench passes them to its children.
 */
export const DEPLOYED_ALLOCATOR = { MIMALLOC_PURGE_DELAY: "10000", MIMALLOC_PURGE_HOLES: "0" } as const;

/**
 * The settings for a bench's children: each as deployed unless the bench's own command line sets
 * it (`MIMALLOC_PURGE_HOLES= bun bench/…` measures with mimalloc's default; an empty value is left
 * out of the child's environment, see `childEnv`).
 */
export function allocatorEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, deployed] of Object.entries(DEPLOYED_ALLOCATOR)) out[name] = env[name] ?? deployed;
  return out;
}

/** One line for a bench's header: the settings its children ran with, and whether that is as deployed. */
export function allocatorNote(settings: Record<string, string>): string {
  const parts = Object.entries(DEPLOYED_ALLOCATOR).map(([name]) => (settings[name] ? `${name}=${settings[name]}` : `${name} unset`));
  const deployed = Object.entries(DEPLOYED_ALLOCATOR).every(([name, value]) => settings[name] === value);
  return `${parts.join(", ")} (${deployed ? "as deployed" : "not as deployed"})`;
}

/**
 * A child's environment: `base` with `extra` on top, less any MIMALLOC_* variable left empty —
 * mimalloc reads an empty value as 1 (for MIMALLOC_PURGE_DELAY, 1 ms), not as unset.
 */
export function childEnv(base: Record<string, string | undefined>, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...base, ...extra })) {
    if (value === undefined || (name.startsWith("MIMALLOC_") && value === "")) continue;
    env[name] = value;
  }
  return env;
}
