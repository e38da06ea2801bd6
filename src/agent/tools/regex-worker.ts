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
  /**
   * The files' raw bytes, moved to the worker rather than copied (they may total tens of
   * megabytes) and decoded there: decoding and copying that much text took the main thread
   * a few hundred milliseconds. Each array must own its whole ArrayBuffer, which is detached
   * afterwards.
   */
  files: Uint8Array[];
  maxMatches: number;
  maxLineLength: number;
}

export interface RegexScanResult {
  matches: LineMatch[];
  /** Indexes of the files that are not valid UTF-8, so were not searched. */
  undecodable: number[];
}

/*
 * JavaScript regular expressions cannot be interrupted from the thread running them, and a
 * pattern like `(a+)+$` takes exponential time. The scan therefore runs in a worker that
 * is terminated when the time budget is spent. The worker is plain JavaScript evaluated
 * from this string so it runs the same under tsx, vitest and a compiled build.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// Gives way to the thread answering requests, as tool workers do (tool-worker-bootstrap.mjs).
try {
  const threadId = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(threadId) && threadId > 0) require('node:os').setPriority(threadId, 10);
} catch {}
const { pattern, flags, files, maxMatches, maxLineLength } = workerData;
const expression = new RegExp(pattern, flags);
const matches = [];
const undecodable = [];
outer: for (let fileIndex = 0; fileIndex < files.length; fileIndex++) {
  let text;
  try {
    // ignoreBOM as in text-file.ts: the byte-order mark stays part of the first line.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(files[fileIndex]);
  } catch {
    undecodable.push(fileIndex);
    continue;
  }
  const lines = text.split('\\n');
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
parentPort.postMessage({ matches, undecodable });
`;

/** Finds the lines of `files` that match, giving up with a ToolFailure after `timeoutMs`. */
export function scanWithRegex(request: RegexScanRequest, timeoutMs: number): Promise<RegexScanResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: request,
      transferList: request.files.map((file) => file.buffer as ArrayBuffer),
    });
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
    worker.once('message', (result: RegexScanResult) => {
      finish(() => resolve(result));
      void worker.terminate();
    });
    worker.once('error', (error) => finish(() => reject(error)));
    worker.once('exit', (code) => finish(() => reject(new Error(`The search worker stopped unexpectedly (exit code ${code}).`))));
  });
}
