import { formatBytes, formatCount, formatDuration } from './format-units.js';
import type { ImportSummary } from './import-types.js';

/** The human-readable report printed after an import (the CLI's default output; `--json` prints the summary itself). */
export function formatImportSummary(summary: ImportSummary): string {
  const rate = summary.seconds > 0 ? formatCount(summary.hits / summary.seconds) : formatCount(summary.hits);
  const lines = [
    `Imported ${formatCount(summary.files)} ${summary.files === 1 ? 'file' : 'files'} (${formatBytes(summary.bytes)}) in ${formatDuration(summary.seconds)}.`,
    `  lines read        ${formatCount(summary.lines)}`,
    `  page hits sent    ${formatCount(summary.hits)}  (${rate} hits/s)`,
    `    accepted        ${formatCount(summary.accepted)}`,
    `    rejected        ${formatCount(summary.rejected)}`,
    `  not pages         ${formatCount(summary.skippedNotPage)}  (assets, redirects, errors, non-GET)`,
    `  malformed lines   ${formatCount(summary.malformed)}`,
  ];
  for (const example of summary.malformedExamples) {
    const text = example.text === '' ? '' : `: ${JSON.stringify(example.text)}`;
    lines.push(`    ${example.file}:${example.line}  ${example.reason}${text}`);
  }
  if (summary.malformed > summary.malformedExamples.length && summary.malformedExamples.length > 0) {
    lines.push(`    … and ${formatCount(summary.malformed - summary.malformedExamples.length)} more`);
  }
  for (const failure of summary.failedFiles) lines.push(`  could not finish ${failure.file}: ${failure.message}`);
  return lines.join('\n');
}
