import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { allocatorEnv, allocatorNote, childEnv, DEPLOYED_ALLOCATOR } from "../../bench/lib/allocator.ts";

// README "Memory allocator": the server's launchers and the benches that start a server or an
// import as it is deployed (bench/lib/allocator.ts: demo, import, http) give it the same allocator settings.
const ROOT = join(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const SETTINGS = ["MIMALLOC_PURGE_DELAY=10000", "MIMALLOC_PURGE_HOLES=0"];

test("npm start, every systemd unit that serves and the benches' launch settings set the same MIMALLOC_* variables", () => {
  expect(JSON.parse(read("package.json")).scripts.start).toStartWith(`${SETTINGS.join(" ")} bun src/main.ts serve`);
  for (const unit of ["deploy/mehir.service", "deploy/mehir-primary.service", "deploy/mehir-replica@.service"]) {
    const lines = read(unit).split("\n");
    for (const setting of SETTINGS) {
      expect(lines).toContain(`Environment=${setting}`);
      // Before ExecStart, in the [Service] section.
      expect(lines.indexOf(`Environment=${setting}`)).toBeLessThan(lines.findIndex((l) => l.startsWith("ExecStart=")));
    }
  }
  expect(Object.entries(DEPLOYED_ALLOCATOR).map(([name, value]) => `${name}=${value}`)).toEqual(SETTINGS);
  for (const bench of ["bench/demo.ts", "bench/import.ts", "bench/http.ts"]) expect(read(bench)).toContain("const LAUNCH_ENV = allocatorEnv();");
});

test("a bench's children get the deployed settings unless its command line sets them; an empty value is left out", () => {
  expect(allocatorEnv({})).toEqual({ MIMALLOC_PURGE_DELAY: "10000", MIMALLOC_PURGE_HOLES: "0" });
  expect(allocatorNote(allocatorEnv({}))).toBe("MIMALLOC_PURGE_DELAY=10000, MIMALLOC_PURGE_HOLES=0 (as deployed)");
  const without = allocatorEnv({ MIMALLOC_PURGE_HOLES: "" });
  expect(allocatorNote(without)).toBe("MIMALLOC_PURGE_DELAY=10000, MIMALLOC_PURGE_HOLES unset (not as deployed)");
  // mimalloc reads an empty value as 1, not as unset: the child's environment leaves it out.
  const env = childEnv({ PATH: "/bin", MIMALLOC_PURGE_HOLES: "", EMPTY_OTHER: "" }, without);
  expect(env).toEqual({ PATH: "/bin", EMPTY_OTHER: "", MIMALLOC_PURGE_DELAY: "10000" });
});
