import { escapeHtml } from "../../http/encoding/html.ts";

/**
 * Portal text for element content: escaped, with every left-to-right token the strings mark
 * (i18n.ts wraps them in U+2066…U+2069) isolated in `<bdi dir="ltr">`, so a key prefix, a header
 * name or a URL inside Hebrew text keeps its own order (`sk_test_`, never `_sk_test`) whatever
 * surrounds it. Attribute values and `<option>` text (which takes no markup) keep the isolate
 * characters themselves, which browsers honour there too.
 *
 * @example text("קריאות עם מפתחות \u2066sk_test_\u2069") // 'קריאות עם מפתחות <bdi dir="ltr">sk_test_</bdi>'
 */
export function text(value: string): string {
  return escapeHtml(value).replace(/\u2066([^\u2066\u2069]*)\u2069/g, '<bdi dir="ltr">$1</bdi>');
}
