/** The encodings the demo writes files in, as the chains publish them. */
export type TextEncoding = "utf8" | "utf8-bom" | "utf16le" | "windows-1255";
