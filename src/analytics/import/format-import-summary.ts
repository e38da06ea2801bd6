import { formatBytes, formatCount, formatDuration } from './format-units.js';
import type { ImportSummary } from './import-types.js';
import { importWarnings } from './import-warnings.js';
import type { NotPageReason } from './page-rule.js';

const NOT_PAGE_LABELS: Record<NotPageReason, string> = {
  asset: 'assets (scripts, images, …)',
  skippedPath: 'non-page paths (/favicon.ico, /api/, …)',
  redirect: 'redirects (3xx)',
  clientError: 'client errors (4xx)',
  serverError: 'server errors (5xx)',
  otherStatus: 'other status (1xx)',
  method: 'not GET or HEAD',
  notRequest: 'no request ("-", TLS noise)',
};

/** The human-readable report printed after an import (the CLI's default output; `--json` prints the summary itself). */
export function formatImportSummary(summary: ImportSummary): string {
  const rate = summary.seconds > 0 ? formatCount(summary.hits / summary.seconds) : formatCount(summary.hits);
  const lines = [
    `Imported ${formatCount(summary.files)} ${summary.files === 1 ? 'file' : 'files'} (${formatBytes(summary.bytes)}) in ${formatDuration(summary.seconds)}.`,
    `  lines read        ${formatCount(summary.lines)}`,
    `  page hits sent    ${formatCount(summary.hits)}  (${rate} hits/s)`,
    ...(summary.agentErrors > 0 ? [`    agents' 4xx     ${formatCount(summary.agentErrors)}  (for the agent-errors report)`] : []),
    `    accepted        ${formatCount(summary.accepted)}`,
    `    rejected        ${formatCount(summary.rejected)}`,
  ];
  for (const [code, count] of Object.entries(summary.rejectedByCode)) lines.push(`      ${code.padEnd(24)}${formatCount(count)}`);
  lines.push(`  not pages         ${formatCount(summary.skippedNotPage)}`);
  for (const [reason, count] of Object.entries(summary.notPages) as Array<[NotPageReason, number]>) {
    if (count > 0) lines.push(`    ${NOT_PAGE_LABELS[reason].padEnd(42)}${formatCount(count)}`);
  }
  lines.push(`  malformed lines   ${formatCount(summary.malformed)}`);
  for (const example of summary.malformedExamples) {
    const text = example.text === '' ? '' : `: ${JSON.stringify(example.text)}`;
    lines.push(`    ${example.file}:${example.line}  ${example.reason}${text}`);
  }
  if (summary.malformed > summary.malformedExamples.length && summary.malformedExamples.length > 0) {
    lines.push(`    … and ${formatCount(summary.malformed - summary.malformedExamples.length)} more`);
  }
  if (summary.salvaged > 0) lines.push(`  salvaged lines    ${formatCount(summary.salvaged)}  (a quote left open; read as far as possible, counted above)`);
  for (const failure of summary.failedFiles) lines.push(`  could not finish ${failure.file}: ${failure.message}`);
  for (const warning of importWarnings(summary)) lines.push(`warning: ${warning.message}`);
  return lines.join('\n');
}
