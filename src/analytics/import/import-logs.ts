import { stat } from 'node:fs/promises';
import { systemClock, type Clock } from '../../core/clock.js';
import { DocwrightError, validationFailed, type FieldError } from '../../core/errors.js';
import { BatchSender } from './batch-sender.js';
import { resolveFieldMap } from './field-map.js';
import { ImportAbortedError } from './import-aborted-error.js';
import { LineIdentities } from './line-identity.js';
import type { FileFailure, ImportCounters, ImportHit, ImportOptions, ImportProgress, ImportSummary, MalformedLineExample } from './import-types.js';
import { MAX_LINE_BYTES } from './line-length-limiter.js';
import { createLineParser, detectLogFormat, LOG_FORMATS } from './log-format.js';
import { openLogLines, OVERLONG_LINE_MARKER, type LogLines } from './log-line-reader.js';
import type { LineParser, LogRecord } from './log-record.js';
import { utmSourceOf } from '../classification/ai-referral.js';
import { classifyHit } from '../classification/classify-hit.js';
import { normalizePath } from './normalize-path.js';
import { NOT_PAGE_REASONS, pageRequestVerdict, type NotPageReason } from './page-rule.js';

export const MAX_BATCH_SIZE = 1000;
/** Lines looked at to recognize a file's format; a rotated log can start with a torn line. */
const DETECTION_LINES = 20;
const PROGRESS_EVERY_LINES = 4096;
const EXAMPLE_TEXT_LENGTH = 200;

/**
 * Imports access logs: reads each file as a stream, keeps the page views (see
 * page-rule.ts), and hands them to `send` in batches, reading on only while at most
 * `maxBatchesInFlight` batches are unanswered. Malformed lines are counted and skipped;
 * a file that breaks off part-way (a truncated gzip) is reported in `failedFiles` and
 * the import goes on with the next one. A `send` failure stops the import with that error.
 */
export async function importLogs(options: ImportOptions): Promise<ImportSummary> {
  validateOptions(options);
  const sizes = await Promise.all(options.files.map(fileSize));
  return new LogImport(options, sizes).run();
}

class LogImport {
  private readonly clock: Clock;
  private readonly startedAt: number;
  private readonly sender: BatchSender;
  private readonly batchSize: number;
  private readonly totalBytes: number;
  private readonly counters = { lines: 0, hits: 0, skippedNotPage: 0, malformed: 0, salvaged: 0, hitsWithoutUserAgent: 0, agentErrors: 0 };
  private readonly notPages = Object.fromEntries(NOT_PAGE_REASONS.map((reason) => [reason, 0])) as Record<NotPageReason, number>;
  private readonly examples: MalformedLineExample[] = [];
  private readonly failedFiles: FileFailure[] = [];
  private batch: ImportHit[] = [];
  private bytesBeforeFile = 0;
  private fileIndex = 0;
  private reader: LogLines | undefined;

  constructor(
    private readonly options: ImportOptions,
    private readonly sizes: readonly number[],
  ) {
    this.clock = options.clock ?? systemClock;
    this.startedAt = this.clock.now();
    this.sender = new BatchSender(options.send, options.maxBatchesInFlight ?? 2);
    this.batchSize = options.batchSize ?? MAX_BATCH_SIZE;
    this.totalBytes = sizes.reduce((sum, size) => sum + size, 0);
  }

  async run(): Promise<ImportSummary> {
    try {
      for (this.fileIndex = 0; this.fileIndex < this.options.files.length; this.fileIndex++) {
        await this.importFile(this.options.files[this.fileIndex] ?? '');
        this.bytesBeforeFile += this.sizes[this.fileIndex] ?? 0;
      }
      if (this.batch.length > 0) await this.flush();
      await this.sender.drain();
    } catch (error) {
      await this.sender.settle();
      if (this.options.signal?.aborted) throw new ImportAbortedError(this.summary());
      throw error;
    }
    this.fileIndex = this.options.files.length - 1;
    this.reportProgress();
    return this.summary();
  }

  private async importFile(file: string): Promise<void> {
    this.throwIfAborted();
    const identity = new LineIdentities();
    try {
      this.reader = await openLogLines(file);
    } catch (error) {
      this.failedFiles.push({ file, message: errorMessage(error) });
      return;
    }
    const lines = this.reader[Symbol.asyncIterator]();
    const fixedFormat = this.options.format ?? 'auto';
    let parser: LineParser | undefined = fixedFormat === 'auto' ? undefined : createLineParser(fixedFormat, this.options.fieldMap);
    const undetected: Array<{ lineNumber: number; text: string }> = [];
    let lineNumber = 0;
    try {
      for (;;) {
        let next: IteratorResult<string>;
        try {
          next = await lines.next();
        } catch (error) {
          this.failedFiles.push({ file, message: `stopped after line ${lineNumber}: ${errorMessage(error)}` });
          break;
        }
        if (next.done) break;
        lineNumber++;
        this.throwIfAborted();
        const text = next.value;
        if (isBlank(text)) continue;
        if (parser === undefined) {
          const format = text === OVERLONG_LINE_MARKER ? undefined : detectLogFormat(text);
          if (format === undefined) {
            undetected.push({ lineNumber, text });
            if (undetected.length < DETECTION_LINES) continue;
            this.rejectUnrecognizedFile(file, undetected.splice(0));
            break;
          }
          parser = createLineParser(format, this.options.fieldMap);
          for (const early of undetected) {
            if (this.handleLine(parser, identity, file, early.lineNumber, early.text)) await this.flush();
          }
          undetected.length = 0;
        }
        if (this.handleLine(parser, identity, file, lineNumber, text)) await this.flush();
        if (this.counters.lines % PROGRESS_EVERY_LINES === 0) this.reportProgress();
      }
      if (parser === undefined && undetected.length > 0) this.rejectUnrecognizedFile(file, undetected.splice(0));
    } finally {
      this.reader.close();
      this.reportProgress(this.sizes[this.fileIndex]);
      this.reader = undefined;
    }
  }

  private throwIfAborted(): void {
    const signal = this.options.signal;
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
  }

  /** Returns true when the batch is full and must be sent before reading on. */
  private handleLine(parser: LineParser, identity: LineIdentities, file: string, lineNumber: number, text: string): boolean {
    this.counters.lines++;
    if (text === OVERLONG_LINE_MARKER) {
      this.countMalformed(file, lineNumber, `line longer than ${MAX_LINE_BYTES} bytes`, '');
      return false;
    }
    const result = parser(text);
    if (!result.ok) {
      this.countMalformed(file, lineNumber, result.reason, text);
      return false;
    }
    const record = result.record;
    if (result.salvaged === true) this.counters.salvaged++;
    const path = normalizePath(record.target);
    let verdict = path === undefined ? 'notRequest' : pageRequestVerdict({ method: record.method, status: record.status, path }, this.options.pageRule);
    if (verdict === 'clientError' && path !== undefined && this.isAgentError(record, path)) {
      verdict = 'page';
      this.counters.agentErrors++;
    }
    if (path === undefined || verdict !== 'page') {
      this.counters.skippedNotPage++;
      this.notPages[verdict === 'page' ? 'notRequest' : verdict]++;
      return false;
    }
    this.batch.push(toHit(identity.next(text), path, record));
    this.counters.hits++;
    if (record.userAgent === undefined) this.counters.hitsWithoutUserAgent++;
    return this.batch.length >= this.batchSize;
  }

  /**
   * A 4xx line that the agent-errors report needs: a request whose user agent names an
   * agent, crawler or bot (not a person; a line without one tells nothing), for a path the
   * page rule would count had it succeeded (a bot's 404 for /favicon.ico or /app.js is
   * noise). A person's 4xx stays out: it was not a page view (docs/import.md).
   */
  private isAgentError(record: LogRecord, path: string): boolean {
    if (record.userAgent === undefined || record.userAgent === '') return false;
    if (pageRequestVerdict({ method: record.method, status: 200, path }, this.options.pageRule) !== 'page') return false;
    return classifyHit({ userAgent: record.userAgent, path, accept: record.accept ?? null }).class !== 'human';
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    await this.sender.submit(batch);
    this.reportProgress();
  }

  private rejectUnrecognizedFile(file: string, lines: Array<{ lineNumber: number; text: string }>): void {
    for (const { lineNumber, text } of lines) {
      this.counters.lines++;
      this.countMalformed(file, lineNumber, 'not a combined, common or JSON-lines log line', text);
    }
    this.failedFiles.push({
      file,
      message: `format not recognized in its first ${lines.length} non-empty lines; expected ${LOG_FORMATS.join(', ')} (set the format to force one)`,
    });
  }

  private countMalformed(file: string, line: number, reason: string, text: string): void {
    this.counters.malformed++;
    if (this.examples.length < (this.options.maxMalformedExamples ?? 10)) {
      this.examples.push({ file, line, reason, text: text.slice(0, EXAMPLE_TEXT_LENGTH) });
    }
  }

  private reportProgress(fileBytesRead?: number): void {
    if (!this.options.onProgress) return;
    const current = fileBytesRead ?? this.reader?.bytesRead() ?? 0;
    const progress: ImportProgress = {
      ...this.currentCounters(),
      file: this.options.files[this.fileIndex] ?? '',
      fileIndex: this.fileIndex,
      fileCount: this.options.files.length,
      bytesRead: Math.min(this.bytesBeforeFile + current, this.totalBytes),
      totalBytes: this.totalBytes,
      elapsedSeconds: this.elapsedSeconds(),
    };
    this.options.onProgress(progress);
  }

  private currentCounters(): ImportCounters {
    return {
      ...this.counters,
      notPages: { ...this.notPages },
      accepted: this.sender.accepted,
      rejected: this.sender.rejected,
      rejectedByCode: { ...this.sender.rejectedByCode },
    };
  }

  private elapsedSeconds(): number {
    return Math.max(0, this.clock.now() - this.startedAt) / 1000;
  }

  private summary(): ImportSummary {
    return {
      files: this.options.files.length,
      bytes: this.totalBytes,
      ...this.currentCounters(),
      seconds: this.elapsedSeconds(),
      malformedExamples: [...this.examples],
      failedFiles: [...this.failedFiles],
    };
  }
}

function toHit(id: string, path: string, record: LogRecord): ImportHit {
  // The query string is dropped, except the utm_source an AI product adds to the links it cites (AI referrals).
  const utmSource = record.target.includes('utm_source=') ? utmSourceOf(record.target) : null;
  const hit: ImportHit = {
    id,
    timestamp: new Date(record.timestamp).toISOString(),
    path: utmSource === null ? path : `${path}?utm_source=${encodeURIComponent(utmSource)}`,
  };
  if (record.status !== undefined && record.statusAssumed !== true) hit.status = record.status;
  if (record.userAgent !== undefined) hit.userAgent = record.userAgent;
  if (record.ip !== undefined) hit.ip = record.ip;
  if (record.visitorId !== undefined) hit.visitorId = record.visitorId;
  if (record.accept !== undefined) hit.accept = record.accept;
  if (record.referrer !== undefined) hit.referrer = record.referrer;
  return hit;
}

function isBlank(text: string): boolean {
  if (text.length === 0) return true;
  const first = text.charCodeAt(0);
  return (first === 0x20 || first === 0x09 || first === 0x0d) && text.trim() === '';
}

async function fileSize(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a regular file');
    return info.size;
  } catch (error) {
    throw new DocwrightError('log_file_unreadable', `Cannot read log file ${file}: ${errorMessage(error)}`, {
      status: 400,
      cause: error,
    });
  }
}

function validateOptions(options: ImportOptions): void {
  const errors: FieldError[] = [];
  if (!Array.isArray(options.files) || options.files.length === 0) errors.push({ path: 'files', message: 'at least one file is required' });
  if (options.batchSize !== undefined && !isIntegerBetween(options.batchSize, 1, MAX_BATCH_SIZE)) {
    errors.push({ path: 'batchSize', message: `must be an integer from 1 to ${MAX_BATCH_SIZE}` });
  }
  if (options.maxBatchesInFlight !== undefined && !isIntegerBetween(options.maxBatchesInFlight, 1, 2)) {
    errors.push({ path: 'maxBatchesInFlight', message: 'must be 1 or 2' });
  }
  if (options.maxMalformedExamples !== undefined && !isIntegerBetween(options.maxMalformedExamples, 0, 10_000)) {
    errors.push({ path: 'maxMalformedExamples', message: 'must be an integer from 0 to 10000' });
  }
  if (options.format !== undefined && options.format !== 'auto' && !(LOG_FORMATS as readonly string[]).includes(options.format)) {
    errors.push({ path: 'format', message: `must be auto, ${LOG_FORMATS.join(', ')}` });
  }
  if (typeof options.send !== 'function') errors.push({ path: 'send', message: 'a send function is required' });
  if (errors.length > 0) throw validationFailed('The import options are invalid.', errors);
  resolveFieldMap(options.fieldMap);
}

function isIntegerBetween(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
