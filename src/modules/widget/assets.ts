import { log } from "../../lib/log.ts";

export interface WidgetAsset {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  /** Strong ETag of the bytes, quoted. */
  etag: string;
}

/** Files under /widget/v1/, by name ("loader.js"). */
export type WidgetAssets = Map<string, WidgetAsset>;

/** An embedded file's name as `bun build --compile --asset dist/widget` stores it: "widget/v1/loader.js". */
const EMBEDDED_NAME = /(?:^|\/)widget\/v1\/([^/]+)$/;

const CONTENT_TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  map: "application/json; charset=utf-8",
};

function asset(body: Uint8Array<ArrayBuffer>, contentType: string): WidgetAsset {
  return { body, contentType, etag: `"w1-${Bun.hash(body).toString(36)}"` };
}

/** The built widget files embedded in the compiled binary (empty map when none were embedded). */
async function embeddedAssets(): Promise<WidgetAssets> {
  const out: WidgetAssets = new Map();
  for (const blob of Bun.embeddedFiles) {
    const match = EMBEDDED_NAME.exec((blob as Blob & { name?: string }).name ?? "");
    if (!match) continue;
    const name = match[1]!;
    const ext = name.slice(name.lastIndexOf(".") + 1);
    out.set(name, asset(new Uint8Array(await blob.arrayBuffer()), CONTENT_TYPES[ext] ?? "application/octet-stream"));
  }
  if (out.size === 0) log.error("widget: no embedded widget files; build the binary with --asset dist/widget");
  return out;
}

/** Builds the widget from widget/ with Bun.build (running from source: no separate build step). */
async function builtAssets(): Promise<WidgetAssets> {
  const { buildWidget } = await import("../../../scripts/build-widget.ts");
  const out: WidgetAssets = new Map();
  for (const file of await buildWidget()) out.set(file.path, asset(file.bytes, file.contentType));
  return out;
}

/**
 * The widget's files: from the binary's embedded copy of dist/widget/v1/ when running as a
 * compiled executable, else built from source in memory.
 */
export function loadWidgetAssets(): Promise<WidgetAssets> {
  return Bun.isStandaloneExecutable ? embeddedAssets() : builtAssets();
}

let cached: Promise<WidgetAssets> | null = null;

/** loadWidgetAssets() once per process (a failed build is retried on the next call). */
export function widgetAssets(): Promise<WidgetAssets> {
  if (!cached) {
    cached = loadWidgetAssets();
    cached.catch(() => (cached = null));
  }
  return cached;
}
