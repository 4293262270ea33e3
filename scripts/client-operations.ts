/**
 * The clients' operation tables, generated from the OpenAPI document the app serves at /docs/json:
 * clients/typescript/src/operations.ts (how each operation is called, and the method signatures
 * over the openapi-typescript types beside it) and clients/python/mehir/_operations.py (one
 * method per operation, in snake case). `npm run openapi:types` writes them with the types;
 * test/clients/generated.test.ts fails when they are not current, so both clients always cover
 * every operation of the document.
 *
 * The rules, the same in both clients:
 * - a method per operation, named after its operationId (snake case in Python);
 * - its input is one object (keyword arguments in Python): the path and query parameters and, for
 *   an operation with a JSON object body, the body's members; an operation whose body is not an
 *   object (`postMcpMessage`: a JSON-RPC message or a batch) takes the body itself; header
 *   parameters (`If-None-Match`) are not offered, so every success has a body;
 * - an operation with a `cursor` parameter and `meta.next_cursor` in its answer is paged: a second
 *   method (`…All`, `…_all`) iterates over the items of every page.
 */

type Schema = Record<string, unknown> & { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema };
interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface DocOperation {
  operationId: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, DocOperation>>;
}

export interface ClientInput {
  name: string;
  required: boolean;
  /** First sentence of its description (for Python docstrings). */
  description: string;
  schema: Schema;
}

export interface ClientOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  pathParams: ClientInput[];
  query: ClientInput[];
  /** `members`: the input's other members are the JSON body; `whole`: the input is the body. */
  body: null | { kind: "members"; members: ClientInput[] } | { kind: "whole" };
  paged: boolean;
  /** An Accept header the operation needs (the MCP transport refuses requests without text/event-stream). */
  accept: string | null;
  /** The media types of its success answers. */
  successTypes: string[];
}

const METHODS = ["get", "post", "put", "patch", "delete"];
const ACCEPT: Record<string, string> = { postMcpMessage: "application/json, text/event-stream" };

/** The first sentence of a description ("e.g." does not end one), at most about 160 characters. */
function firstSentence(text: string | undefined): string {
  const sentence = (text ?? "").replace(/\s+/g, " ").trim().split(/(?<!\b(?:e\.g|i\.e))\.\s/)[0]!.replace(/\.$/, "");
  return sentence.length <= 160 ? sentence : `${sentence.slice(0, 160).replace(/\s\S*$/, "")} …`;
}

function input(name: string, required: boolean, description: string | undefined, schema: Schema | undefined): ClientInput {
  return { name, required, description: firstSentence(description ?? (schema?.description as string | undefined)), schema: schema ?? {} };
}

/** The operations of the document, in its order, as the clients call them. */
export function clientOperations(doc: OpenApiDocument): ClientOperation[] {
  const operations: ClientOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === "path").map((p) => input(p.name, true, p.description, p.schema));
      const query = params.filter((p) => p.in === "query").map((p) => input(p.name, p.required === true, p.description, p.schema));
      const bodySchema = op.requestBody?.content["application/json"]?.schema;
      let body: ClientOperation["body"] = null;
      if (bodySchema?.type === "object" && bodySchema.properties) {
        const required = new Set(bodySchema.required ?? []);
        body = { kind: "members", members: Object.entries(bodySchema.properties).map(([name, schema]) => input(name, required.has(name), undefined, schema)) };
      } else if (bodySchema) {
        if (pathParams.length || query.length) throw new Error(`${op.operationId}: a body that is not an object cannot be combined with parameters`);
        body = { kind: "whole" };
      }
      const names = [...pathParams, ...query, ...(body?.kind === "members" ? body.members : [])].map((p) => p.name);
      const clash = names.find((name, i) => names.indexOf(name) !== i);
      if (clash) throw new Error(`${op.operationId}: \`${clash}\` is both a parameter and a body member; the flat input cannot hold both`);
      const success = op.responses["200"]?.content?.["application/json"]?.schema;
      const paged = query.some((p) => p.name === "cursor") && success?.properties?.meta?.properties?.next_cursor !== undefined && success.properties.data?.type === "array";
      const successTypes = [...new Set(Object.entries(op.responses).flatMap(([status, r]) => (status.startsWith("2") ? Object.keys(r.content ?? {}) : [])))];
      operations.push({ operationId: op.operationId, method: method.toUpperCase(), path, summary: op.summary ?? op.operationId, pathParams, query, body, paged, accept: ACCEPT[op.operationId] ?? null, successTypes });
    }
  }
  return operations;
}

const HEADER = "Generated by `npm run openapi:types` (scripts/client-operations.ts) from the OpenAPI document at /docs/json. Do not edit: a test fails when it is not current.";

/** clients/typescript/src/operations.ts */
export function typescriptOperations(ops: ClientOperation[]): string {
  const table = ops.map((op) => {
    const spec = [`method: "${op.method}"`, `path: "${op.path}"`, `pathParams: [${op.pathParams.map((p) => `"${p.name}"`).join(", ")}]`, `body: ${op.body ? `"${op.body.kind}"` : "null"}`];
    if (op.accept) spec.push(`accept: "${op.accept}"`);
    return `  ${op.operationId}: { ${spec.join(", ")} },`;
  });
  const methods = ops.flatMap((op) => {
    const optional = !op.pathParams.length && !op.query.some((p) => p.required) && !op.body;
    const lines = [
      `  /** ${op.summary} (\`${op.method} ${op.path}\`) */`,
      `  ${op.operationId}(input${optional ? "?" : ""}: Input<"${op.operationId}">, options?: RequestOptions): Promise<Output<"${op.operationId}">>;`,
    ];
    if (op.paged) {
      lines.push(
        `  /** Every item of {@link Operations.${op.operationId}}, page after page (follows \`meta.next_cursor\`; \`limit\` is the page size) */`,
        `  ${op.operationId}All(input${optional ? "?" : ""}: PageInput<"${op.operationId}">, options?: RequestOptions): AsyncGenerator<Item<"${op.operationId}">, void, undefined>;`,
      );
    }
    return lines;
  });
  return [
    `// ${HEADER}`,
    `import type { Input, Item, Output, PageInput, RequestOptions } from "./types.ts";`,
    ``,
    `/** How each operation is called: its method, path, path parameters and what its body is. */`,
    `export const OPERATIONS = {`,
    ...table,
    `} as const;`,
    ``,
    `/** The operations with a cursor: each also has an \`…All\` method iterating over every page's items. */`,
    `export const PAGED = [${ops.filter((op) => op.paged).map((op) => `"${op.operationId}"`).join(", ")}] as const;`,
    ``,
    `/** One method per operation, named after its operationId, resolving to the answer's body (the \`{ data, meta }\` envelope). */`,
    `export interface Operations {`,
    ...methods,
    `}`,
    ``,
  ].join("\n");
}

export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const PYTHON_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self".split(" "),
);

function pythonName(name: string, where: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name) || PYTHON_KEYWORDS.has(name)) throw new Error(`${where}: \`${name}\` is not usable as a Python keyword argument`);
  return name;
}

function pythonType(schema: Schema): string {
  if (Array.isArray(schema.enum) || schema.type === "string") return "str";
  if (schema.type === "integer") return "int";
  if (schema.type === "number") return "float";
  if (schema.type === "boolean") return "bool";
  if (schema.type === "array") return "List[Any]";
  if (schema.type === "object") return "Dict[str, Any]";
  return "Any";
}

const pyString = (text: string) => JSON.stringify(text);

/** What a Python method returns: the envelope as a dict, bytes for other media types, Any for both or for JSON-RPC. */
function pythonResult(op: ClientOperation): string {
  const json = op.successTypes.includes("application/json");
  const other = op.successTypes.some((type) => type !== "application/json");
  if (json && !other && op.body?.kind !== "whole") return "Dict[str, Any]";
  return !json && other ? "bytes" : "Any";
}

/** clients/python/mehir/_operations.py */
export function pythonOperations(ops: ClientOperation[]): string {
  const out = [
    `# ${HEADER}`,
    `"""The API's operations as methods of :class:\`mehir.Client\` (one per operationId, in snake case)."""`,
    ``,
    `from typing import Any, Dict, Iterator, List, Optional`,
    ``,
    ``,
    `class Operations:`,
    `    """One method per operation, returning the answer's body (the \`\`{"data": …, "meta": …}\`\` envelope) as a dict.`,
    ``,
    `    Mixed into :class:\`mehir.Client\`, which provides \`\`_call\`\` (one request, retried on 429/503) and \`\`_items\`\` (the pages).`,
    `    """`,
  ];
  for (const op of ops) {
    const name = snakeCase(op.operationId);
    const where = op.operationId;
    const members = op.body?.kind === "members" ? op.body.members : [];
    const inputs = [...op.pathParams, ...op.query, ...members];
    const ordered = [...inputs.filter((p) => p.required), ...inputs.filter((p) => !p.required)];
    const signature = (skip: string | null) => {
      const args = ordered.filter((p) => p.name !== skip).map((p) => (p.required ? `${pythonName(p.name, where)}: ${pythonType(p.schema)}` : `${pythonName(p.name, where)}: Optional[${pythonType(p.schema)}] = None`));
      if (op.body?.kind === "whole") return ["self", "body: Any"];
      return args.length ? ["self", "*", ...args] : ["self"];
    };
    const doc = [`        """${op.summary} (\`\`${op.method} ${op.path}\`\`).`];
    if (inputs.length) {
      doc.push(``, `        Arguments:`);
      for (const p of ordered) doc.push(`            ${p.name}${p.required ? "" : " (optional)"}: ${p.description.replace(/\\/g, "\\\\").replace(/"""/g, "'''")}`.trimEnd());
    } else if (op.body?.kind === "whole") {
      doc.push(``, `        The body is sent as it is (a JSON-RPC message or a list of them).`);
    }
    doc.push(`        """`);
    const dict = (list: ClientInput[]) => `{${list.map((p) => `${pyString(p.name)}: ${p.name}`).join(", ")}}`;
    const body = op.body?.kind === "members" ? dict(members) : op.body?.kind === "whole" ? "body" : "None";
    const accept = op.accept ? pyString(op.accept) : "None";
    out.push(
      ``,
      `    def ${name}(${signature(null).join(", ")}) -> ${pythonResult(op)}:`,
      ...doc,
      `        return self._call(${pyString(op.operationId)}, ${pyString(op.method)}, ${pyString(op.path)}, ${dict(op.pathParams)}, ${dict(op.query)}, ${body}, ${op.body ? "True" : "False"}, ${accept})`,
    );
    if (op.paged) {
      const args = ordered.filter((p) => p.name !== "cursor");
      out.push(
        ``,
        `    def ${name}_all(${signature("cursor").join(", ")}) -> Iterator[Dict[str, Any]]:`,
        `        """Every item of :meth:\`${name}\`, page after page (follows \`\`meta.next_cursor\`\`; \`\`limit\`\` is the page size)."""`,
        `        return self._items(self.${name}, ${dict(args)})`,
      );
    }
  }
  out.push(``);
  return out.join("\n");
}
