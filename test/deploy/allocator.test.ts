import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

// README "Memory allocator": the server's launchers, the first-start bench (which starts the
// server as it is deployed) and the import bench (the server runs the scheduled imports) give it the same allocator setting.
const ROOT = join(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const SETTING = "MIMALLOC_PURGE_DELAY=10000";

test("npm start, every systemd unit that serves, bench/demo.ts and bench/import.ts set the same MIMALLOC_PURGE_DELAY", () => {
  expect(JSON.parse(read("package.json")).scripts.start).toStartWith(`${SETTING} bun src/main.ts serve`);
  for (const unit of ["deploy/mehir.service", "deploy/mehir-primary.service", "deploy/mehir-replica@.service"]) {
    const lines = read(unit).split("\n");
    expect(lines).toContain(`Environment=${SETTING}`);
    // Before ExecStart, in the [Service] section.
    expect(lines.indexOf(`Environment=${SETTING}`)).toBeLessThan(lines.findIndex((l) => l.startsWith("ExecStart=")));
  }
  for (const bench of ["bench/demo.ts", "bench/import.ts"]) {
    expect(read(bench)).toContain(`MIMALLOC_PURGE_DELAY: process.env.MIMALLOC_PURGE_DELAY ?? "${SETTING.split("=")[1]}"`);
  }
});
