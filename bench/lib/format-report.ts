import type { BenchMetric, SuiteReport, Target } from './suite-report.js';

/** A plain-text report: one aligned table per suite, readable in a terminal and in CI logs. */
export function formatSuiteReport(report: SuiteReport): string {
  const lines = [`== ${report.title}`];
  for (const line of report.context) lines.push(`   ${line}`);
  lines.push('');
  const header = ['metric', 'docwright', 'baseline (same run)', 'ratio', 'target', ''];
  const rows = report.metrics.map(metricRow);
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const render = (row: string[]): string =>
    `   ${row
      .map((cell, column) => (column === 1 || column === 3 ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd()}`;
  lines.push(render(header));
  lines.push(render(widths.map((width) => '-'.repeat(width))));
  for (const row of rows) lines.push(render(row));
  const noted = report.metrics.filter((item) => item.note !== undefined);
  if (noted.length > 0 || report.notes.length > 0) lines.push('');
  for (const item of noted) lines.push(`   * ${item.name}: ${item.note}`);
  for (const note of report.notes) lines.push(`   * ${note}`);
  return lines.join('\n');
}

function metricRow(item: BenchMetric): string[] {
  return [
    item.name,
    formatValue(item.value, item.unit),
    item.baseline === undefined ? '' : `${item.baseline.name}: ${formatValue(item.baseline.value, item.unit)}`,
    item.ratio === undefined ? '' : `${formatRatio(item.ratio)}×`,
    item.target === undefined ? '' : formatTarget(item.target, item.unit),
    item.passed === undefined ? '' : item.passed ? 'ok' : 'MISSED',
  ];
}

export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return `${value} ${unit}`;
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return `${value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${unit}`;
}

function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return '∞';
  return ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2);
}

function formatTarget(target: Target, unit: string): string {
  const sign = target.comparison === 'at-least' ? '≥' : '≤';
  return target.of === 'ratio' ? `${sign} ${target.limit}×` : `${sign} ${formatValue(target.limit, unit)}`;
}
