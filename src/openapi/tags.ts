/** The document's tags, in the order the document (and the docs UI) lists them; every operation's first tag is one. */
export const TAGS = [
  { name: "prices", description: "Prices of one product across chains and stores" },
  { name: "search", description: "Hebrew product search" },
  { name: "chains", description: "Chains and their catalogs" },
  { name: "stores", description: "Stores, by chain, city or distance" },
  { name: "promotions", description: "Active promotions" },
  { name: "basket", description: "Basket comparison" },
  { name: "widget", description: "Embeddable widget" },
  { name: "alerts", description: "Price alerts delivered by signed webhook" },
  { name: "exports", description: "Daily bulk exports" },
  { name: "mcp", description: "The API as MCP tools for AI assistants" },
  { name: "operations", description: "Health probes (metrics are served on a listener of their own: docs/operations.md \"Logs and metrics\")" },
];
