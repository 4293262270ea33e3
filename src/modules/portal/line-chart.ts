import { escapeHtml as e } from "../../http/encoding/html.ts";

/** One line of a chart: its label, colour, and values by date (`YYYY-MM-DD`, ascending; null = no value). */
export interface Series {
  label: string;
  points: { date: string; value: number | null }[];
}

/** Colours told apart by most eyes (Okabe–Ito, then two more), in order of the series. */
export const SERIES_COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8a5a00"];

const DAY_MS = 86_400_000;
const dayNumber = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);

/**
 * A step chart of prices (or an index) over days, server-rendered without script, like the usage
 * chart: the lines are an SVG stretched to the card's width with strokes that keep their width,
 * the axis labels are HTML text at the page's size, the legend is an HTML list. A value holds
 * until the next one (a price holds until it changes); each series runs to `until`. Time runs
 * left to right in both languages. `format` writes a y value (e.g. "12.90").
 */
export function lineChart(series: Series[], options: { label: string; until: string; format: (value: number) => string; id: string }): string {
  const points = series.flatMap((s) => s.points);
  const values = points.flatMap((p) => (p.value === null ? [] : [p.value]));
  if (values.length === 0) return "";
  const first = Math.min(...points.map((p) => dayNumber(p.date)));
  const last = Math.max(dayNumber(options.until), ...points.map((p) => dayNumber(p.date)));
  const span = Math.max(1, last - first);
  let low = Math.min(...values);
  let high = Math.max(...values);
  const pad = (high - low) * 0.08 || Math.max(1, high * 0.05);
  low = Math.max(0, low - pad);
  high += pad;
  const W = 1000;
  const H = 300;
  const x = (date: string) => (((dayNumber(date) - first) / span) * W).toFixed(1);
  const y = (value: number) => (H - ((value - low) / (high - low)) * H).toFixed(1);
  const paths = series
    .map((s, i) => {
      let d = "";
      let open = false;
      let drawn: number | null = null;
      for (const p of s.points) {
        if (p.value === null) {
          if (open) d += ` H${x(p.date)}`;
          open = false;
          continue;
        }
        if (open && p.value === drawn) continue; // an unchanged value: the step goes on
        d += open ? ` H${x(p.date)} V${y(p.value)}` : ` M${x(p.date)} ${y(p.value)}`;
        open = true;
        drawn = p.value;
      }
      if (open) d += ` H${W}`;
      const colour = SERIES_COLOURS[i % SERIES_COLOURS.length]!;
      return `<path d="${d.trim()}" fill="none" stroke="${colour}" stroke-width="2.5" vector-effect="non-scaling-stroke"><title>${e(s.label)}</title></path>`;
    })
    .join("");
  const ticks = [0, 1 / 3, 2 / 3, 1].map((f) => low + (high - low) * f);
  const grid = ticks.map((v) => `<line x1="0" x2="${W}" y1="${y(v)}" y2="${y(v)}" stroke="#e6eaef" stroke-width="1" vector-effect="non-scaling-stroke"/>`).join("");
  const yLabels = [...ticks].reverse().map((v) => `<span>${e(options.format(v))}</span>`).join("");
  const dateAt = (f: number) => new Date((first + span * f) * DAY_MS).toISOString().slice(0, 10);
  const xLabels = [0, 0.5, 1].map((f) => `<span style="left:${f * 100}%">${dateAt(f)}</span>`).join("");
  const legend = series
    .map((s, i) => `<li><span class="swatch" style="background:${SERIES_COLOURS[i % SERIES_COLOURS.length]}"></span><bdi>${e(s.label)}</bdi></li>`)
    .join("");
  return `<figure class="line-chart" id="${e(options.id)}" dir="ltr" role="img" aria-label="${e(options.label)}">
<div class="chart-y" aria-hidden="true">${yLabels}</div>
<svg class="chart-lines" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">${grid}${paths}</svg>
<div class="chart-x" aria-hidden="true">${xLabels}</div>
</figure>
<ul class="legend">${legend}</ul>`;
}
