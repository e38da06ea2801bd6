import { Transform, type TransformCallback } from 'node:stream';

/** A real access-log line is a few hundred bytes; 64 KiB leaves room for giant cookies and query strings. */
export const MAX_LINE_BYTES = 64 * 1024;

/**
 * Stands in for a line that was longer than the limit. A raw NUL never occurs in an
 * nginx, Apache or JSON log line (all three escape control characters), so the marker
 * cannot be mistaken for data.
 */
export const OVERLONG_LINE_MARKER = '\u0000docwright:overlong-line';

const NEWLINE = 0x0a;
const MARKER_LINE = Buffer.from(`${OVERLONG_LINE_MARKER}\n`);

/**
 * Replaces each line longer than `maxLineBytes` by OVERLONG_LINE_MARKER before readline
 * sees it. readline keeps an unfinished line in memory however long it grows, so a file
 * without newlines (a binary, a corrupt log) would otherwise exhaust memory; with this
 * in front at most `maxLineBytes` of one line are held.
 */
export class LineLengthLimiter extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private overflowing = false;

  constructor(private readonly maxLineBytes: number = MAX_LINE_BYTES) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let runStart = 0;
    let lineStart = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, lineStart);
      if (newline < 0) break;
      const carried = lineStart === 0 ? this.pendingBytes : 0;
      const lineBytes = carried + newline - lineStart;
      if (this.overflowing || lineBytes > this.maxLineBytes) {
        this.emitPending(false);
        if (lineStart > runStart) this.push(chunk.subarray(runStart, lineStart));
        this.push(MARKER_LINE);
        this.overflowing = false;
        runStart = newline + 1;
      } else if (lineStart === 0 && this.pendingBytes > 0) {
        this.emitPending(true);
      }
      lineStart = newline + 1;
    }
    if (lineStart > runStart) this.push(chunk.subarray(runStart, lineStart));
    this.hold(chunk.subarray(lineStart));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.overflowing) this.push(Buffer.from(OVERLONG_LINE_MARKER));
    else this.emitPending(true);
    callback();
  }

  private hold(rest: Buffer): void {
    if (rest.length === 0 || this.overflowing) return;
    if (this.pendingBytes + rest.length > this.maxLineBytes) {
      this.emitPending(false);
      this.overflowing = true;
      return;
    }
    this.pending.push(rest);
    this.pendingBytes += rest.length;
  }

  /** Writes out (or drops) the start of the current line carried over from earlier chunks. */
  private emitPending(write: boolean): void {
    if (write) for (const part of this.pending) this.push(part);
    this.pending = [];
    this.pendingBytes = 0;
  }
}
