/**
 * Builds the embeddable widget (widget/loader.ts) for browsers: one minified IIFE per
 * entrypoint, no chunks needed today. `buildWidget()` returns the files in memory (the server
 * uses it when running from source); run as a script it also writes them to dist/widget/v1/,
 * which the binary build embeds.
 * Usage: bun scripts/build-widget.ts
 */
import { mkdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";

export const WIDGET_ENTRY = join(import.meta.dir, "..", "widget", "loader.ts");
export const WIDGET_OUT_DIR = join(import.meta.dir, "..", "dist", "widget", "v1");

export interface WidgetFile {
  /** Path under /widget/v1/, e.g. "loader.js". */
  path: string;
  bytes: Uint8Array<ArrayBuffer>;
  contentType: string;
}

/** Bundles the widget for browsers in memory: minified, no source maps, IIFE so it runs from a plain <script>. */
export async function buildWidget(): Promise<WidgetFile[]> {
  const result = await Bun.build({
    entrypoints: [WIDGET_ENTRY],
    target: "browser",
    format: "iife",
    minify: true,
    sourcemap: "none",
    naming: "[name].[ext]",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) {
    throw new AggregateError(result.logs, "widget build failed: " + result.logs.map((l) => String(l)).join("; "));
  }
  const files: WidgetFile[] = [];
  for (const output of result.outputs) {
    files.push({
      path: basename(output.path),
      bytes: new Uint8Array(await output.arrayBuffer()),
      contentType: output.type.startsWith("text/javascript") ? "text/javascript; charset=utf-8" : output.type,
    });
  }
  return files;
}

/** Builds and writes dist/widget/v1/* (replacing what was there). */
export async function writeWidget(outDir = WIDGET_OUT_DIR): Promise<WidgetFile[]> {
  const files = await buildWidget();
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const file of files) await Bun.write(join(outDir, file.path), file.bytes);
  return files;
}

async function main(): Promise<void> {
  const files = await writeWidget();
  for (const file of files) {
    const gzipped = Bun.gzipSync(file.bytes).length;
    console.log(`widget: dist/widget/v1/${file.path} ${file.bytes.length} B, ${gzipped} B gzipped`);
  }
}

// No top-level await: the server imports this module, and the binary's bytecode build forbids it.
if (import.meta.main) {
  main().catch((error) => {
    console.error(String(error));
    process.exit(1);
  });
}
