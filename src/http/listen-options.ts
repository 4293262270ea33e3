import type { Settings } from "../config.ts";
import { lastResortAnswer } from "./last-resort.ts";

/**
 * What the server listens with. `development: false` always: Elysia turns on Bun.serve's
 * development mode unless NODE_ENV is "production", and in it an error that escapes the app's own
 * handling is answered with Bun's error page — the stack and lines of our source — instead of a
 * plain 500. The app answers every error itself (problem+json); nothing else should reach a client.
 *
 * `reusePort` only when the reuse-port setting asks for it: Elysia turns it on by default, and then
 * a second server on a port in use started silently and split the traffic with the first.
 *
 * An error that escapes the app's own handling is answered by `lastResortAnswer` (500 problem+json, logged).
 *
 * @example app.listen(listenOptions(settings))
 */
export function listenOptions(settings: Pick<Settings, "port" | "host" | "reusePort">): { port: number; hostname: string; development: false; reusePort: boolean; error: (error: Error) => Response } {
  return { port: settings.port, hostname: settings.host, development: false, reusePort: settings.reusePort, error: lastResortAnswer };
}

/** `127.0.0.1:9464` → its host and port (`[::1]:9464` → `::1`). */
export function splitAddress(address: string): { hostname: string; port: number } {
  const colon = address.lastIndexOf(":");
  const host = address.slice(0, colon);
  return { hostname: host.startsWith("[") ? host.slice(1, -1) : host, port: Number(address.slice(colon + 1)) };
}
