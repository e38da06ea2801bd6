import { Worker } from 'node:worker_threads';
import { ToolFailure } from './tool-failure.js';

export interface LineMatch {
  fileIndex: number;
  /** 1-based. */
  line: number;
  text: string;
}

export interface RegexScanRequest {
  pattern: string;
  flags: string;
  texts: string[];
  maxMatches: number;
  maxLineLength: number;
}

/*
 * JavaScript regular expressions cannot be interrupted from the thread running them, and a
 * pattern like `(a+)+$` takes exponential time. The scan therefore runs in a worker that
 * is terminated when the time budget is spent. The worker is plain JavaScript evaluated
 * from this string so it runs the same under tsx, vitest and a compiled build.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pattern, flags, texts, maxMatches, maxLineLength } = workerData;
const expression = new RegExp(pattern, flags);
const matches = [];
outer: for (let fileIndex = 0; fileIndex < texts.length; fileIndex++) {
  const lines = texts[fileIndex].split('\\n');
  for (let index = 0; index < lines.length; index++) {
    let line = lines[index];
    if (line.endsWith('\\r')) line = line.slice(0, -1);
    const found = expression.exec(line);
    if (found === null) continue;
    let text = line;
    if (line.length > maxLineLength) {
      const start = Math.max(0, Math.min(found.index - Math.floor(maxLineLength / 3), line.length - maxLineLength));
      const end = start + maxLineLength;
      text = (start > 0 ? '…' : '') + line.slice(start, end) + (end < line.length ? '…' : '');
    }
    matches.push({ fileIndex, line: index + 1, text });
    if (matches.length >= maxMatches) break outer;
  }
}
parentPort.postMessage(matches);
`;

/** Finds the lines of `texts` that match, giving up with a ToolFailure after `timeoutMs`. */
export function scanWithRegex(request: RegexScanRequest, timeoutMs: number): Promise<LineMatch[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: request });
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const timer = setTimeout(() => {
      finish(() =>
        reject(
          new ToolFailure(
            `The search took longer than ${timeoutMs} ms and was stopped. Simplify the regular expression: nested repetition such as (a+)+ can take exponential time.`,
          ),
        ),
      );
      void worker.terminate();
    }, timeoutMs);
    worker.once('message', (matches: LineMatch[]) => {
      finish(() => resolve(matches));
      void worker.terminate();
    });
    worker.once('error', (error) => finish(() => reject(error)));
    worker.once('exit', (code) => finish(() => reject(new Error(`The search worker stopped unexpectedly (exit code ${code}).`))));
  });
}
