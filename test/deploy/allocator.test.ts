import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

// README "Memory allocator": the server's launchers and the first-start bench (which starts the
// server as it is deployed) give it the same allocator setting.
const ROOT = join(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const SETTING = "MIMALLOC_PURGE_DELAY=10000";

test("npm start, every systemd unit that serves and bench/demo.ts set the same MIMALLOC_PURGE_DELAY", () => {
  expect(JSON.parse(read("package.json")).scripts.start).toStartWith(`${SETTING} bun src/main.ts serve`);
  for (const unit of ["deploy/mehir.service", "deploy/mehir-primary.service", "deploy/mehir-replica@.service"]) {
    const lines = read(unit).split("\n");
    expect(lines).toContain(`Environment=${SETTING}`);
    // Before ExecStart, in the [Service] section.
    expect(lines.indexOf(`Environment=${SETTING}`)).toBeLessThan(lines.findIndex((l) => l.startsWith("ExecStart=")));
  }
  expect(read("bench/demo.ts")).toContain(`MIMALLOC_PURGE_DELAY: process.env.MIMALLOC_PURGE_DELAY ?? "${SETTING.split("=")[1]}"`);
});
