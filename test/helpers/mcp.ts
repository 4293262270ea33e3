import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

type Handler = { handle(request: Request): Promise<Response> };

/** An SDK client over the Streamable HTTP transport, its requests answered by `app.handle` (no socket). */
export async function inProcessClient(app: Handler, headers: Record<string, string>, seen: Response[] = []): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    requestInit: { headers },
    fetch: async (url, init) => {
      const response = await app.handle(new Request(url, init));
      seen.push(response.clone());
      return response;
    },
  });
  const client = new Client({ name: "mehir-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** One raw JSON-RPC POST to /mcp, as a client that speaks the transport would send it. */
export function rpc(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The text blocks of a tool result. */
export function texts(result: object): string[] {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[]).filter((c) => c.type === "text").map((c) => c.text!);
}
