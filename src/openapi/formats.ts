import * as z from "zod";

/** An ISO 8601 time with its offset, e.g. `2026-11-22T09:30:00+02:00` (OpenAPI `format: date-time`). */
export const DateTime = z.string().meta({ format: "date-time" });

/** A calendar date, `YYYY-MM-DD` (OpenAPI `format: date`). */
export const IsoDate = z.string().meta({ format: "date" });

/** An absolute URL (OpenAPI `format: uri`). */
export const Url = z.string().meta({ format: "uri" });
