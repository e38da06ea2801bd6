import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { LineLengthLimiter, MAX_LINE_BYTES, OVERLONG_LINE_MARKER } from './line-length-limiter.js';
import { openDecodedFileStream } from './log-file-stream.js';

export { OVERLONG_LINE_MARKER };

export interface LogLines extends AsyncIterable<string> {
  readonly file: string;
  /** Detected from the content's magic bytes, not the name. */
  readonly compressed: boolean;
  /** Size on disk (compressed size for gzip). */
  readonly sizeBytes: number;
  /** Bytes of the file read so far, on disk: progress through `sizeBytes`. */
  bytesRead(): number;
  /** Stops reading; safe to call more than once and after the end. */
  close(): void;
}

export interface OpenLogLinesOptions {
  maxLineBytes?: number;
}

/**
 * Reads a log file line by line with constant memory however large it is: the file
 * (gunzipped when its magic bytes say so) streams through readline, which pauses the
 * file while lines wait to be consumed. Lines longer than `maxLineBytes` arrive as
 * OVERLONG_LINE_MARKER. Iterating throws if the file cannot be read or decompressed
 * part-way, after yielding every line read before that.
 */
export async function openLogLines(file: string, options: OpenLogLinesOptions = {}): Promise<LogLines> {
  const { size } = await stat(file);
  const { source, content, compressed } = await openDecodedFileStream(file);
  const limiter = new LineLengthLimiter(options.maxLineBytes ?? MAX_LINE_BYTES);
  let failure: Error | undefined;
  const fail = (error: Error): void => {
    failure ??= error;
    limiter.end();
  };
  content.on('error', fail);
  limiter.on('error', fail);
  content.pipe(limiter);
  const lines = createInterface({ input: limiter, crlfDelay: Infinity });

  const close = (): void => {
    lines.close();
    limiter.destroy();
    content.destroy();
    source.destroy();
  };

  return {
    file,
    compressed,
    sizeBytes: size,
    bytesRead: () => Math.min(source.bytesRead, size),
    close,
    async *[Symbol.asyncIterator]() {
      try {
        for await (const line of lines) yield line;
        if (failure) throw failure;
      } finally {
        close();
      }
    },
  };
}
