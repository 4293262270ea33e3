/** Tiny flag reader for the bench scripts: `--scale 0.1`, `--quick`, `--force`. */
export function flag(args: string[], name: string): boolean {
  return args.includes(`--${name}`);
}

export function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < args.length) return args[i + 1];
  const eq = args.find((a) => a.startsWith(`--${name}=`));
  return eq ? eq.slice(name.length + 3) : undefined;
}

export function numberOption(args: string[], name: string, fallback: number): number {
  const raw = option(args, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} expects a positive number, got ${raw}`);
  return n;
}
