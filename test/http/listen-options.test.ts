import { afterAll, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { listenOptions, splitAddress } from "../../src/http/listen-options.ts";
import { listenOrExplain, PortInUseError } from "../../src/http/listen-error.ts";

// Elysia turns Bun.serve's development mode on unless NODE_ENV is "production" (the tests' and a
// plain `npm start`'s case); in it an error escaping the app gets Bun's page with our source.
const app = new Elysia().get("/", () => "ok");
afterAll(() => app.stop());

test("the server listens on the settings' address, out of Bun's development mode whatever NODE_ENV says", async () => {
  expect(process.env.NODE_ENV).not.toBe("production");
  app.listen(listenOptions({ port: 0, host: "127.0.0.1", reusePort: false }));
  expect(app.server!.development).toBe(false);
  expect(app.server!.hostname).toBe("127.0.0.1");
  expect(await (await fetch(`http://127.0.0.1:${app.server!.port}/`)).text()).toBe("ok");
});

test("a port in use is an error naming the port, not a second server sharing it (reusePort only on request)", () => {
  const port = app.server!.port!;
  const second = new Elysia().get("/", () => "second");
  let thrown: unknown;
  try {
    listenOrExplain(() => second.listen(listenOptions({ port, host: "127.0.0.1", reusePort: false })), { port, host: "127.0.0.1", setting: "--port / MEHIR_PORT" });
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(PortInUseError);
  expect((thrown as Error).message).toStartWith(`port ${port} is in use on 127.0.0.1`);
  expect(second.server).toBeNull();
});

test("splitAddress reads HOST:PORT and [IPv6]:PORT", () => {
  expect(splitAddress("127.0.0.1:9464")).toEqual({ hostname: "127.0.0.1", port: 9464 });
  expect(splitAddress("[::1]:0")).toEqual({ hostname: "::1", port: 0 });
});
