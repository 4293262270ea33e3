import { escapeHtml as e } from "../../http/encoding/html.ts";

/**
 * This month's calls per day as a bar chart without script: the bars are an SVG stretched to the
 * card's width (no text inside it, so nothing shrinks), the axis labels are HTML text at the
 * page's own size — readable from a 320 px phone to a desktop. Days run left to right in both
 * languages; every bar has a <title> with its date and count. Days are UTC days, as the quota's
 * month is (the page says so, and shows its other dates in UTC too).
 */
export function usageChart(days: { day: string; count: number }[], label: string): string {
  const n = Math.max(1, days.length);
  const height = 100;
  const max = Math.max(1, ...days.map((d) => d.count));
  const bars = days
    .map((d, i) => {
      const h = Math.max(d.count > 0 ? 1 : 0, (d.count / max) * height);
      return `<rect x="${(i + 0.15).toFixed(2)}" y="${(height - h).toFixed(2)}" width="0.7" height="${h.toFixed(2)}" fill="#0b5cad"><title>${e(d.day)}: ${d.count}</title></rect>`;
    })
    .join("");
  const grid = [0.5, 1].map((f) => `<line x1="0" x2="${n}" y1="${height - f * height}" y2="${height - f * height}" stroke="#e6eaef" stroke-width="1" vector-effect="non-scaling-stroke"/>`).join("");
  // Day numbers under the 1st and every 5th day, each centred under its bar.
  const ticks = days
    .map((d, i) => {
      const day = Number(d.day.slice(8));
      return day === 1 || day % 5 === 0 ? `<span style="left:${(((i + 0.5) / n) * 100).toFixed(2)}%">${day}</span>` : "";
    })
    .join("");
  const yLabels = [max, Math.round(max / 2), 0].map((v) => `<span>${v}</span>`).join("");
  return `<figure class="usage-chart" dir="ltr" role="img" aria-label="${e(label)}">
<div class="chart-y" aria-hidden="true">${yLabels}</div>
<svg class="chart-bars" viewBox="0 0 ${n} ${height}" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">${grid}${bars}</svg>
<div class="chart-x" aria-hidden="true">${ticks}</div>
</figure>`;
}
