import { systemClock, type Clock } from '../../core/clock.js';
import { formatBytes, formatCount, formatDuration } from './format-units.js';
import type { ImportProgress } from './import-types.js';

/** What the bar needs of a stream; `process.stderr` is one. */
export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressBarOptions {
  clock?: Clock;
  /** Least time between two redraws on a terminal. Default 100 ms (10 per second). */
  redrawIntervalMs?: number;
  /** Time between two plain lines when the output is not a terminal. Default 5 s. */
  plainIntervalMs?: number;
  label?: string;
}

/** An ImportProgress fits; its `totalBytes`, when present, replaces the total given at creation. */
export type ProgressUpdate = Pick<ImportProgress, 'bytesRead' | 'hits'> & Partial<Pick<ImportProgress, 'totalBytes'>>;

export interface ProgressBar {
  /** Takes a progress report; usable directly as `onProgress`. Cheap to call often. */
  update: (progress: ProgressUpdate) => void;
  /** Draws the final state and ends the bar's line on a terminal; prints nothing otherwise. */
  finish: () => void;
}

const ERASE_TO_END_OF_LINE = '\x1b[K';

/**
 * Progress through `totalBytes` of input. On a terminal: one line redrawn in place, at
 * most every `redrawIntervalMs`, with a bar, percentage, bytes, hits per second and
 * time left. Elsewhere (a log file, CI): a plain line every `plainIntervalMs`, since
 * carriage-return redraws would fill such output with thousands of lines.
 */
export function createProgressBar(stream: ProgressOutput, totalBytes: number, options: ProgressBarOptions = {}): ProgressBar {
  const clock = options.clock ?? systemClock;
  const interactive = stream.isTTY === true;
  const interval = interactive ? (options.redrawIntervalMs ?? 100) : (options.plainIntervalMs ?? 5000);
  const label = options.label ?? 'import';
  const startedAt = clock.now();
  // A plain output stays silent for the first interval, so a short import prints only its summary.
  let lastDrawAt = interactive ? Number.NEGATIVE_INFINITY : startedAt;
  let latest = { bytesRead: 0, hits: 0 };
  let total = totalBytes;
  let finished = false;

  const describe = (now: number): { percent: string; fraction: number; details: string } => {
    const fraction = total > 0 ? Math.min(1, latest.bytesRead / total) : 1;
    const elapsed = (now - startedAt) / 1000;
    const rate = elapsed > 0 ? `${formatCount(latest.hits / elapsed)} hits/s` : '- hits/s';
    const remaining = latest.bytesRead > 0 && elapsed > 0 ? formatDuration((elapsed * Math.max(0, total - latest.bytesRead)) / latest.bytesRead) : '-';
    return {
      fraction,
      percent: `${(fraction * 100).toFixed(1)}%`,
      details: `${formatBytes(latest.bytesRead)}/${formatBytes(total)}  ${formatCount(latest.hits)} hits  ${rate}  ETA ${remaining}`,
    };
  };

  const drawInteractive = (now: number): void => {
    const { percent, fraction, details } = describe(now);
    const columns = stream.columns ?? 80;
    const text = `${percent.padStart(6)}  ${details}`;
    const barWidth = Math.max(10, Math.min(40, columns - text.length - label.length - 5));
    const filled = Math.round(fraction * barWidth);
    const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}] ${text}`;
    // A line wider than the terminal wraps, and "\r" then only returns to the wrapped part.
    stream.write(`\r${line.slice(0, Math.max(1, columns - 1))}${ERASE_TO_END_OF_LINE}`);
  };

  const drawPlain = (now: number): void => {
    const { percent, details } = describe(now);
    stream.write(`${label}: ${percent}  ${details}\n`);
  };

  return {
    update(progress) {
      if (finished) return;
      latest = { bytesRead: progress.bytesRead, hits: progress.hits };
      if (progress.totalBytes !== undefined) total = progress.totalBytes;
      const now = clock.now();
      if (now - lastDrawAt < interval) return;
      lastDrawAt = now;
      if (interactive) drawInteractive(now);
      else drawPlain(now);
    },
    finish() {
      if (finished) return;
      finished = true;
      if (!interactive) return;
      drawInteractive(clock.now());
      stream.write('\n');
    },
  };
}
