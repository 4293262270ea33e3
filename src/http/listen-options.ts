import type { Settings } from "../config.ts";

/**
 * What the server listens with. `development: false` always: Elysia turns on Bun.serve's
 * development mode unless NODE_ENV is "production", and in it an error that escapes the app's own
 * handling is answered with Bun's error page — the stack and lines of our source — instead of a
 * plain 500. The app answers every error itself (problem+json); nothing else should reach a client.
 *
 * @example app.listen(listenOptions(settings))
 */
export function listenOptions(settings: Pick<Settings, "port" | "host">): { port: number; hostname: string; development: false } {
  return { port: settings.port, hostname: settings.host, development: false };
}
