import type { ProgressOutput } from '../analytics/import/progress-bar.js';

export interface WalkProgress {
  update(pages: number, rows: number): void;
  finish(): void;
}

const ERASE_LINE = '\r\x1b[K';
/** A walk that ends sooner than this prints no progress at all. */
const QUIET_MS = 1000;

/**
 * Progress of a paginated download on stderr. The total is unknown (the API only says
 * whether more pages exist), so it shows pages and rows so far (`unit` renames them:
 * the docs check shows pages checked of pages found). On a terminal one line is
 * redrawn and erased at the end; elsewhere a plain line every few seconds.
 */
export function createWalkProgress(
  stream: ProgressOutput,
  now: () => number = Date.now,
  label = 'visitors',
  unit: readonly [string, string, string] = ['page', 'pages', 'rows'],
): WalkProgress {
  const interactive = stream.isTTY === true;
  const interval = interactive ? 100 : 5000;
  const startedAt = now();
  let lastDrawAt = startedAt + QUIET_MS - interval;
  let drawn = false;
  const text = (pages: number, rows: number): string =>
    `${label}: ${pages.toLocaleString('en-US')} ${pages === 1 ? unit[0] : unit[1]}, ${rows.toLocaleString('en-US')} ${unit[2]}, ${((now() - startedAt) / 1000).toFixed(1)} s`;
  return {
    update(pages, rows) {
      const at = now();
      if (at - lastDrawAt < interval) return;
      lastDrawAt = at;
      drawn = true;
      stream.write(interactive ? `${ERASE_LINE}${text(pages, rows)}` : `${text(pages, rows)}\n`);
    },
    finish() {
      if (interactive && drawn) stream.write(ERASE_LINE);
    },
  };
}
