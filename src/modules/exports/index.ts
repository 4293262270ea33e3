import { Elysia } from "elysia";
import type { Feature } from "../feature.ts";
import { operation } from "../../openapi/operation.ts";
import type { Services } from "../../services.ts";
import { ApiError } from "../../errors/api-error.ts";
import { EXPORT_TABLES, MANIFEST_FILE } from "../../exports/tables.ts";
import { ExportFileParams, ExportsResponse } from "./model.ts";

const PATH = "/api/v1/exports";

/** The column lists of the files, for the docs (docs/operations.md has the same, generated from EXPORT_TABLES). */
const COLUMNS_DOC = EXPORT_TABLES.map((t) => `- \`${t.file}\`: ${t.about} Columns: ${t.columns.map((c) => `\`${c.name}\` (${c.about})`).join(", ")}.`).join("\n");

export const LIST_EXPORTS = operation({
  method: "get",
  path: PATH,
  operationId: "listExports",
  audience: "pro",
  liveOnly: true,
  success: { schema: ExportsResponse },
  errors: [],
  summary: "Daily bulk exports",
  tags: ["exports"],
  description:
    "After each import the service writes a dated export of the whole data — one gzipped CSV per table and `manifest.json` — off the request path (a background worker reading one consistent snapshot, never holding the import's lock). " +
    "This lists the exports of the last 30 days (`MEHIR_EXPORT_DAYS`; older ones are deleted), newest first, each with its files' row counts, sizes and SHA-256. A second import on the same date replaces that date's export.\n\n" +
    "CSV: UTF-8 without a byte-order mark, a header row, comma-separated, RFC 4180 quoting (fields holding a comma, quote or line break are quoted, quotes doubled), CRLF line ends; empty = unknown; money in ILS with two decimals; times ISO 8601 with an offset; booleans `true`/`false`.\n\n" +
    COLUMNS_DOC +
    "\n\nErrors: 401/403/429 as everywhere.",
});

export const GET_EXPORT_FILE = operation({
  method: "get",
  path: `${PATH}/:date/:file`,
  operationId: "getExportFile",
  audience: "pro",
  liveOnly: true,
  params: ExportFileParams,
  examples: { date: "2026-11-22", file: "prices.csv.gz" },
  success: {
    description: "The file",
    content: { "application/gzip": { schema: { type: "string", contentMediaType: "application/gzip" } }, "application/json": { schema: { type: "object" } } },
    headers: { "X-Checksum-SHA256": { description: "SHA-256 of the file (hex), as the manifest lists it" } },
  },
  errors: ["export_not_found"],
  summary: "Download a file of a daily export",
  tags: ["exports"],
  description:
    "{Plan}; one call of the quota per file. Streams a file of an export listed by `GET /api/v1/exports/`: a table's gzipped CSV (`application/gzip`; `X-Checksum-SHA256` = the manifest's `sha256`) or `manifest.json`.\n\n" +
    "Errors: 400 `invalid_parameter` (`date` not YYYY-MM-DD), 404 `export_not_found` (no export of that date, or no such file in it; the detail lists the files), 401/403/429 as everywhere.",
});

/** GET /api/v1/exports/ and GET /api/v1/exports/{date}/{file}: the daily bulk exports. */
export function exportsModule(deps: Pick<Services, "exports" | "settings" | "data">) {
  return new Elysia({ name: "module.exports" })
    .get(
      LIST_EXPORTS.path,
      () => {
        const manifests = deps.exports?.list().slice(0, deps.settings.exportDays) ?? [];
        const data = manifests.map((m) => ({
          date: m.date,
          data_version: m.data_version,
          data_updated_at: m.data_updated_at,
          source: m.source,
          generated_at: m.generated_at,
          files: m.files.map((f) => ({ ...f, url: `${PATH}/${m.date}/${f.name}` })),
        }));
        return { data, meta: { days_kept: deps.settings.exportDays, data_updated_at: deps.data.current.updatedAt } };
      },
      {
        response: { 200: ExportsResponse },
      },
    )
    .get(
      GET_EXPORT_FILE.path,
      ({ params }) => {
        const manifest = deps.exports?.manifest(params.date) ?? null;
        if (!manifest) throw new ApiError("export_not_found", `There is no export of ${params.date}; GET ${PATH}/ lists the exports kept.`);
        const path = deps.exports!.filePath(params.date, params.file);
        if (!path) {
          const names = [...manifest.files.map((f) => f.name), MANIFEST_FILE].join(", ");
          throw new ApiError("export_not_found", `The export of ${params.date} has no file ${params.file}; it has ${names}.`);
        }
        const entry = manifest.files.find((f) => f.name === params.file);
        const headers: Record<string, string> = {
          "content-type": entry ? "application/gzip" : "application/json; charset=utf-8",
          "content-disposition": `attachment; filename="mehir-${params.date}-${params.file}"`,
          "cache-control": "private, max-age=86400",
        };
        if (entry) headers["x-checksum-sha256"] = entry.sha256;
        return new Response(Bun.file(path), { headers });
      },
      {
        params: ExportFileParams,
      },
    );
}

/** The daily bulk exports. */
export const exportsFeature: Feature = {
  name: "exports",
  operations: [LIST_EXPORTS, GET_EXPORT_FILE],
  routes: ({ services }) => exportsModule(services),
};
