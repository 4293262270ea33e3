// Files embedded with `import x from "…" with { type: "file" }` resolve to a path string.
declare module "*/standalone.js" {
  const path: string;
  export default path;
}
