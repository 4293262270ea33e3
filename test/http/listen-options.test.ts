import { afterAll, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { listenOptions } from "../../src/http/listen-options.ts";

// Elysia turns Bun.serve's development mode on unless NODE_ENV is "production" (the tests' and a
// plain `npm start`'s case); in it an error escaping the app gets Bun's page with our source.
const app = new Elysia().get("/", () => "ok");
afterAll(() => app.stop());

test("the server listens on the settings' address, out of Bun's development mode whatever NODE_ENV says", async () => {
  expect(process.env.NODE_ENV).not.toBe("production");
  app.listen(listenOptions({ port: 0, host: "127.0.0.1" }));
  expect(app.server!.development).toBe(false);
  expect(app.server!.hostname).toBe("127.0.0.1");
  expect(await (await fetch(`http://127.0.0.1:${app.server!.port}/`)).text()).toBe("ok");
});
