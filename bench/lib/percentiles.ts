/** Order statistics of timing samples. */

/** The p-th percentile (0–100) by linear interpolation between the closest ranks. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('percentile of no samples');
  if (!(p >= 0 && p <= 100)) throw new Error(`percentile must be within 0..100 (got ${p})`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  const low = sorted[lower]!;
  const high = sorted[upper]!;
  return low + (high - low) * (rank - lower);
}

export interface SampleSummary {
  count: number;
  min: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
}

export function summarize(samples: readonly number[]): SampleSummary {
  return {
    count: samples.length,
    min: Math.min(...samples),
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    max: Math.max(...samples),
    mean: samples.reduce((sum, value) => sum + value, 0) / samples.length,
  };
}
