/**
 * Portal passwords: argon2id with OWASP's baseline parameters (19 MiB, 2 passes, 1 lane), via
 * Bun.password. Hashes carry their parameters, so stronger settings later still verify old ones.
 */
const ARGON2ID = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;

export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 200;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, ARGON2ID);
}

/** False for any mismatch, and without hashing for over-long input. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD) return false;
  return Bun.password.verify(password, hash);
}
