/**
 * Minimal Prometheus text exposition (format 0.0.4): counters and histograms with labels, kept
 * in plain Maps so recording a request costs a few map operations.
 */

export type Labels = Record<string, string>;

/** `a"b\c` → `a\"b\\c` (label values escape backslash, quote and newline). */
export function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

export function formatLabels(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return "";
  return "{" + keys.map((k) => `${k}="${escapeLabel(labels[k]!)}"`).join(",") + "}";
}

/** A number as Prometheus writes it (`+Inf`, `NaN`, integers without exponent). */
export function formatValue(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  if (Number.isNaN(value)) return "NaN";
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(12)));
}

/** `# HELP` and `# TYPE` lines of one metric family. */
export function header(name: string, type: "counter" | "gauge" | "histogram", help: string): string {
  return `# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}\n# TYPE ${name} ${type}\n`;
}

/** One sample line. */
export function sample(name: string, labels: Labels, value: number): string {
  return `${name}${formatLabels(labels)} ${formatValue(value)}\n`;
}

/** A label set's values in order, joined: its series' key (made without an array: once per request). */
function labelKey(labels: Labels): string {
  let key: string | undefined;
  for (const name in labels) key = key === undefined ? labels[name]! : `${key}\u0000${labels[name]!}`;
  return key ?? "";
}

/** A labelled counter; label sets are keyed by their values in a fixed label order. */
export class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    this.entry(labels).value += by;
  }

  /** The series of a label set (made at 0 when new): a caller holding it counts with `entry.value += by`. */
  entry(labels: Labels): { value: number } {
    const key = labelKey(labels);
    let entry = this.values.get(key);
    if (!entry) this.values.set(key, (entry = { labels, value: 0 }));
    return entry;
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels))?.value ?? 0;
  }

  render(): string {
    let out = header(this.name, "counter", this.help);
    for (const { labels, value } of this.values.values()) out += sample(this.name, labels, value);
    return out;
  }
}

/** One label set's figures in a histogram: per-bucket counts (not cumulative), sum and count. */
export interface HistogramSeries {
  labels: Labels;
  counts: Float64Array;
  sum: number;
  count: number;
}

/** A labelled histogram with fixed upper bounds (seconds, for latencies). */
export class Histogram {
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  observe(labels: Labels, value: number): void {
    this.observeIn(this.seriesOf(labels), value);
  }

  /** The series of a label set (made empty when new), for observeIn. */
  seriesOf(labels: Labels): HistogramSeries {
    const key = labelKey(labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 }));
    return s;
  }

  /** Records `value` in a series of this histogram (seriesOf's). */
  observeIn(s: HistogramSeries, value: number): void {
    // Non-cumulative per bucket; rendered cumulatively.
    for (let i = 0; i < this.bounds.length; i++) {
      if (value <= this.bounds[i]!) {
        s.counts[i]!++;
        break;
      }
    }
    s.sum += value;
    s.count++;
  }

  render(): string {
    let out = header(this.name, "histogram", this.help);
    for (const { labels, counts, sum, count } of this.series.values()) out += renderHistogram(this.name, labels, this.bounds, counts, sum, count);
    return out;
  }
}

/** The `_bucket`, `_sum` and `_count` lines of one histogram series (per-bucket counts, not cumulative). */
export function renderHistogram(name: string, labels: Labels, bounds: readonly number[], counts: ArrayLike<number>, sum: number, count: number): string {
  let out = "";
  let cumulative = 0;
  for (let i = 0; i < bounds.length; i++) {
    cumulative += counts[i]!;
    out += sample(`${name}_bucket`, { ...labels, le: formatValue(bounds[i]!) }, cumulative);
  }
  out += sample(`${name}_bucket`, { ...labels, le: "+Inf" }, count);
  out += sample(`${name}_sum`, labels, sum);
  out += sample(`${name}_count`, labels, count);
  return out;
}
