/** Percentiles and distribution summaries of latency samples (milliseconds). */

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of sorted samples: the smallest sample with at least q of them at or below it. */
export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 0.5)),
    p90: round(percentile(sorted, 0.9)),
    p99: round(percentile(sorted, 0.99)),
    max: round(sorted.at(-1) ?? NaN),
    mean: round(mean),
  };
}

/** The distribution as (quantile, ms) points: every percent, then the tail, then the max. Enough to redraw the CDF. */
export function cdfPoints(samples: number[]): [number, number][] {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return [];
  const qs = [0.001, 0.005, ...Array.from({ length: 99 }, (_, i) => (i + 1) / 100), 0.995, 0.999, 1];
  return qs.map((q) => [q, round(percentile(sorted, q))]);
}

/** A stopwatch in milliseconds with sub-millisecond resolution. */
export const now = () => performance.now();

/** Rounded to two decimals: the precision of every figure that is not a latency summary. */
export const hundredths = (x: number) => Math.round(x * 100) / 100;

/** `a / b` to two decimals. */
export const ratio = (a: number, b: number) => hundredths(a / b);
