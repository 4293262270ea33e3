/** Why a file could not be read at all. */
export type RejectReason =
  | "corrupt-compression"
  | "too-large"
  | "empty"
  | "entity-declaration"
  | "malformed-xml"
  | "unknown-kind"
  | "unsupported-archive";

/**
 * A file that yields no records: corrupt gzip/zip, over the size limit, DOCTYPE/ENTITY
 * declarations, malformed XML. The importer reports it as `rejected` and goes on.
 *
 * @example
 * try { readPriceFile(bytes, name) } catch (e) { if (e instanceof FileRejectedError) report(e.reason, e.message) }
 */
export class FileRejectedError extends Error {
  override readonly name = "FileRejectedError";
  constructor(
    readonly reason: RejectReason,
    message: string,
  ) {
    super(message);
  }
}
