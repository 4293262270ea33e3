/**
 * Checks an answer against the OpenAPI document: its status is one the operation lists, its
 * media type one the response declares, its body valid against the response's schema (ajv,
 * JSON Schema 2020-12: the dialect of OpenAPI 3.1, formats checked), its required headers
 * present and every declared header it carries valid against its schema.
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ValidateFunction } from "ajv";

type Json = Record<string, any>;

const DOC_ID = "https://mehir.invalid/openapi.json";

/** `~` and `/` escaped for a JSON pointer. */
export const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

export class ContractValidator {
  private readonly ajv: InstanceType<typeof Ajv2020>;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json) {
    // strict off: the document's schemas carry OpenAPI's own keywords (`example`) beside JSON Schema's.
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
  }

  /** The operation object of a method and path template, or undefined. */
  operation(method: string, schemaPath: string): Json | undefined {
    return this.doc.paths?.[schemaPath]?.[method.toLowerCase()];
  }

  /** Every (method, path template) of the document. */
  operations(): string[] {
    return Object.entries(this.doc.paths as Json).flatMap(([path, ops]) => Object.keys(ops as Json).map((m) => `${m.toUpperCase()} ${path}`));
  }

  private validator(ref: string): ValidateFunction {
    let fn = this.compiled.get(ref);
    if (!fn) {
      fn = this.ajv.compile({ $ref: `${DOC_ID}#${ref}` });
      this.compiled.set(ref, fn);
    }
    return fn;
  }

  /** Why `value` is not valid against the schema at `ref` (a JSON pointer into the document), or null. */
  check(ref: string, value: unknown): string | null {
    const fn = this.validator(ref);
    return fn(value) ? null : this.ajv.errorsText(fn.errors, { dataVar: "body" });
  }

  /** What is wrong with an answer of `method schemaPath` (empty when it is as documented). */
  async problems(method: string, schemaPath: string, response: Response): Promise<string[]> {
    const where = `${method} ${schemaPath} → ${response.status}`;
    const op = this.operation(method, schemaPath);
    if (!op) return [`${where}: no such operation in the document`];
    const status = String(response.status);
    const declared = op.responses?.[status] as Json | undefined;
    if (!declared) return [`${where}: status not documented (documented: ${Object.keys(op.responses).join(", ")})`];
    const problems: string[] = [];
    const base = pointer("", "paths", schemaPath, method.toLowerCase(), "responses", status);

    for (const [name, header] of Object.entries((declared.headers ?? {}) as Json)) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`${where}: required header ${name} missing`);
        continue;
      }
      const type = header.schema?.type;
      const typed = type === "integer" || type === "number" ? (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value) : value;
      const error = this.check(`${base}/${pointer("headers", name, "schema")}`, typed);
      if (error) problems.push(`${where}: header ${name}: ${value}: ${error}`);
    }

    const text = response.status === 304 || response.status === 204 ? "" : await response.text();
    const content = declared.content as Json | undefined;
    if (!content) {
      if (text !== "") problems.push(`${where}: a body where the document declares none`);
      return problems;
    }
    const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (!(mediaType in content)) return [...problems, `${where}: content-type ${mediaType} not documented (documented: ${Object.keys(content).join(", ")})`];
    if (mediaType.endsWith("json")) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return [...problems, `${where}: body is not JSON`];
      }
      const error = this.check(`${base}/${pointer("content", mediaType, "schema")}`, body);
      if (error) problems.push(`${where}: ${error}: ${text.slice(0, 300)}`);
    }
    return problems;
  }
}
