/**
 * A listener that could not start because its port is taken: one line naming the port and the
 * setting that moves it (mehir exits 1 with it).
 */
export class PortInUseError extends Error {
  override name = "PortInUseError";
}

/**
 * Starts a listener with `listen`; a port in use becomes a PortInUseError naming `what` and the
 * setting to change (other errors pass through).
 */
export function listenOrExplain<T>(listen: () => T, what: { port: number; host: string; setting: string }): T {
  try {
    return listen();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== "EADDRINUSE") throw error;
    throw new PortInUseError(`port ${what.port} is in use on ${what.host}: another process listens there. Stop it, or choose another port (${what.setting}).`);
  }
}
