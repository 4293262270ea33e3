import { escapeHtml as e } from "../http/html.ts";

/**
 * This month's calls per day as an inline SVG bar chart (no script). Days run left to right
 * in both languages; every bar has a <title> with its date and count.
 */
export function usageChart(days: { day: string; count: number }[], label: string): string {
  const width = 720;
  const height = 180;
  const top = 14;
  const bottom = 22;
  const left = 34;
  const plotH = height - top - bottom;
  const max = Math.max(1, ...days.map((d) => d.count));
  const step = (width - left - 6) / Math.max(1, days.length);
  const bar = Math.max(2, step * 0.7);
  const y = (count: number) => top + plotH - (count / max) * plotH;
  const bars = days
    .map((d, i) => {
      const x = left + i * step + (step - bar) / 2;
      const h = Math.max(d.count > 0 ? 1 : 0, (d.count / max) * plotH);
      const dayNum = Number(d.day.slice(8));
      const tick = dayNum === 1 || dayNum % 5 === 0 ? `<text x="${(x + bar / 2).toFixed(1)}" y="${height - 6}" text-anchor="middle">${dayNum}</text>` : "";
      return `<rect x="${x.toFixed(1)}" y="${(top + plotH - h).toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}" rx="2" fill="#0b5cad"><title>${e(d.day)}: ${d.count}</title></rect>${tick}`;
    })
    .join("");
  const grid = [0, 0.5, 1]
    .map((f) => {
      const value = Math.round(max * f);
      const gy = y(value).toFixed(1);
      return `<line x1="${left}" x2="${width - 4}" y1="${gy}" y2="${gy}" stroke="#e6eaef"/><text x="${left - 6}" y="${gy}" dy="4" text-anchor="end">${value}</text>`;
    })
    .join("");
  return `<svg class="usage-chart" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="${e(label)}" direction="ltr" xmlns="http://www.w3.org/2000/svg">${grid}${bars}</svg>`;
}
