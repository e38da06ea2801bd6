/**
 * The shape every benchmark suite hands back to bench/run.ts, so one report format fits
 * the analytics, import and agent-jobs suites alike (and machines can read `--out` JSON).
 */

export type Comparison = 'at-least' | 'at-most';

export interface Target {
  /** `ratio` compares value ÷ baseline; `value` compares the value itself. */
  of: 'ratio' | 'value';
  comparison: Comparison;
  limit: number;
}

export interface BenchMetric {
  name: string;
  value: number;
  /** `hits/s`, `ms`, `MiB`, … The baseline, when present, is in the same unit. */
  unit: string;
  baseline?: { name: string; value: number };
  /** value ÷ baseline.value, when there is a baseline. */
  ratio?: number;
  target?: Target;
  /** Set when there is a target. */
  passed?: boolean;
  note?: string;
}

export interface SuiteReport {
  suite: string;
  title: string;
  /** Lines that say what was measured on what data. */
  context: string[];
  metrics: BenchMetric[];
  notes: string[];
}

export interface MetricInput {
  name: string;
  value: number;
  unit: string;
  baseline?: { name: string; value: number };
  target?: Target;
  note?: string;
}

/** Builds a metric, deriving its ratio and whether it met its target. */
export function metric(input: MetricInput): BenchMetric {
  const result: BenchMetric = { name: input.name, value: input.value, unit: input.unit };
  if (input.baseline !== undefined) {
    result.baseline = input.baseline;
    result.ratio = input.baseline.value > 0 ? input.value / input.baseline.value : Number.POSITIVE_INFINITY;
  }
  if (input.target !== undefined) {
    result.target = input.target;
    const compared = input.target.of === 'ratio' ? result.ratio : input.value;
    result.passed = compared !== undefined && meets(compared, input.target);
  }
  if (input.note !== undefined) result.note = input.note;
  return result;
}

function meets(value: number, target: Target): boolean {
  return target.comparison === 'at-least' ? value >= target.limit : value <= target.limit;
}
