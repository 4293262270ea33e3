import * as z from "zod";
import { IsoDate } from "../../openapi/formats.ts";
import { LiveMode } from "../../http/request/livemode.ts";
import { DateTime } from "../../openapi/formats.ts";

export const ExportFileParams = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date, YYYY-MM-DD").describe("The export's date (Israel date of its data), e.g. `2026-11-22`"),
  file: z.string().min(1).max(64).describe("A file name from the export's `files` (e.g. `prices.csv.gz`), or `manifest.json`"),
});

export const ExportFile = z.object({
  name: z.string().describe("File name, e.g. `prices.csv.gz`"),
  rows: z.number().int().describe("Data rows (the header row not counted)"),
  bytes: z.number().int().describe("Size of the gzipped file"),
  sha256: z.string().describe("SHA-256 of the gzipped file, hex"),
  columns: z.array(z.string()).describe("The header row"),
  url: z.string().describe("Path to download it (one call of the quota)"),
});

export const ExportItem = z.object({
  date: IsoDate.describe("Israel date of the data (its `data_updated_at`)"),
  data_version: z.number().int(),
  data_updated_at: DateTime,
  source: z.string().describe("`demo` or `live`"),
  generated_at: DateTime,
  files: z.array(ExportFile),
});

export const ExportsResponse = z.object({
  data: z.array(ExportItem),
  meta: z.object({ days_kept: z.number().int(), data_updated_at: DateTime.nullable(), quota_remaining: z.number().int().optional(), request_id: z.string().optional(), livemode: LiveMode.optional() }),
});
