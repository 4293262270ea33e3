type Child = Node | string | null | undefined | false;

/** Creates an element; text goes in as text nodes, so product names can never inject markup. */
export function h(tag: string, attrs?: Record<string, string> | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (attrs) for (const name in attrs) el.setAttribute(name, attrs[name]!);
  for (const child of children) if (child) el.append(child);
  return el;
}
