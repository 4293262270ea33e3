export const LOADER_PATH = "/widget/v1/loader.js";

/**
 * The service's base URL: where this loader was served from (`document.currentScript`), or,
 * when that is not available (the script ran from a bundler or a tag manager), the first
 * script tag whose src ends with the loader's path. A path prefix before /widget/ is kept,
 * so a service behind a reverse proxy under /prices/ still works.
 */
export function serviceBase(doc: Document): string | null {
  const current = doc.currentScript as HTMLScriptElement | null;
  let src = current && current.src && current.src.indexOf(LOADER_PATH) >= 0 ? current.src : "";
  if (!src) {
    const scripts = doc.querySelectorAll("script[src]");
    for (let i = 0; i < scripts.length && !src; i++) {
      const candidate = (scripts[i] as HTMLScriptElement).src;
      if (candidate.indexOf(LOADER_PATH) >= 0) src = candidate;
    }
  }
  if (!src) return null;
  try {
    const url = new URL(src, doc.baseURI);
    return url.origin + url.pathname.slice(0, url.pathname.indexOf(LOADER_PATH));
  } catch {
    return null;
  }
}
