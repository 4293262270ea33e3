/**
 * Builds the single binary `dist/mehir`: minified, with bytecode, every asset embedded
 * (docs UI bundle, widget, registry and seed data are imported statically).
 * Usage: bun scripts/build.ts [--target bun-linux-x64] [--outfile dist/mehir]
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { WORKER_ENTRYPOINTS } from "../src/workers.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { target: { type: "string" }, outfile: { type: "string", default: "dist/mehir" } },
});

// Extra entrypoints: every worker the code starts is bundled into the binary alongside main.ts
// (src/workers.ts names them and finds them there by these paths).
const WORKERS = WORKER_ENTRYPOINTS.map((path) => `src/${path}`);

// The widget is built first so the binary embeds the built files.
if (existsSync("scripts/build-widget.ts")) {
  const widget = Bun.spawnSync([process.execPath, "scripts/build-widget.ts"], { stdout: "inherit", stderr: "inherit" });
  if (widget.exitCode !== 0) process.exit(widget.exitCode ?? 1);
}

const args = [
  "build",
  "--compile",
  "--minify",
  "--bytecode",
  "--sourcemap=none",
  // The workers are found under their path below src/ (src/workers.ts): said, not left to Bun's
  // guess of a common folder — Bun 1.4.5 rooted ten entrypoints at the repository instead, and
  // the binary's first start found none of its workers.
  "--root=src",
  // The built widget (dist/widget/v1/*) is embedded and read back through Bun.embeddedFiles.
  "--asset",
  "dist/widget",
  ...(values.target ? [`--target=${values.target}`] : []),
  "--outfile",
  values.outfile!,
  "src/main.ts",
  ...WORKERS,
];
console.log(`bun ${args.join(" ")}`);
const result = Bun.spawnSync([process.execPath, ...args], { stdout: "inherit", stderr: "inherit" });
process.exit(result.exitCode ?? 1);
