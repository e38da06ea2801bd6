import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { isGzipFile } from '../../../src/analytics/import/log-file-stream.js';
import { openLogLines, OVERLONG_LINE_MARKER } from '../../../src/analytics/import/log-line-reader.js';
import { LineLengthLimiter } from '../../../src/analytics/import/line-length-limiter.js';

const directory = mkdtempSync(join(tmpdir(), 'docwright-log-reader-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let fileCounter = 0;
function writeTemp(name: string, content: string | Buffer): string {
  const file = join(directory, `${fileCounter++}-${name}`);
  writeFileSync(file, content);
  return file;
}

async function readAll(file: string, maxLineBytes?: number): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of await openLogLines(file, maxLineBytes === undefined ? {} : { maxLineBytes })) lines.push(line);
  return lines;
}

describe('openLogLines', () => {
  test('reads lines of a plain file, with CRLF endings and a last line without newline', async () => {
    const file = writeTemp('plain.log', 'one\r\ntwo\n\nthree');
    const reader = await openLogLines(file);
    const lines: string[] = [];
    for await (const line of reader) lines.push(line);
    expect(lines).toEqual(['one', 'two', '', 'three']);
    expect(reader.compressed).toBe(false);
    expect(reader.sizeBytes).toBe(15);
    expect(reader.bytesRead()).toBe(15);
  });

  test('detects gzip by its magic bytes, not by the file name', async () => {
    const text = 'a\nb\nc\n';
    const gzipNamedLog = writeTemp('access.log.2', gzipSync(text));
    const plainNamedGz = writeTemp('access.log.gz', text);
    expect(await isGzipFile(gzipNamedLog)).toBe(true);
    expect(await isGzipFile(plainNamedGz)).toBe(false);
    expect(await isGzipFile(writeTemp('empty.log', ''))).toBe(false);
    expect(await readAll(gzipNamedLog)).toEqual(['a', 'b', 'c']);
    expect(await readAll(plainNamedGz)).toEqual(['a', 'b', 'c']);
    expect((await openLogLines(gzipNamedLog)).compressed).toBe(true);
  });

  test('reads through concatenated gzip members', async () => {
    const file = writeTemp('joined.gz', Buffer.concat([gzipSync('first\n'), gzipSync('second\n')]));
    expect(await readAll(file)).toEqual(['first', 'second']);
  });

  test('progress of a gzip file is measured in compressed bytes', async () => {
    const text = Array.from({ length: 50_000 }, (_, index) => `line number ${index}`).join('\n');
    const compressed = gzipSync(text);
    const file = writeTemp('progress.gz', compressed);
    const reader = await openLogLines(file);
    let count = 0;
    for await (const _line of reader) count++;
    expect(count).toBe(50_000);
    expect(reader.sizeBytes).toBe(compressed.length);
    expect(reader.bytesRead()).toBe(compressed.length);
  });

  test('a truncated gzip yields the lines before the damage, then throws', async () => {
    const text = Array.from({ length: 200_000 }, (_, index) => `entry ${index} ${'x'.repeat(index % 50)}`).join('\n');
    const compressed = gzipSync(text);
    const file = writeTemp('truncated.gz', compressed.subarray(0, Math.floor(compressed.length * 0.8)));
    const lines: string[] = [];
    await expect(async () => {
      for await (const line of await openLogLines(file)) lines.push(line);
    }).rejects.toThrow(/unexpected end of file/);
    expect(lines.length).toBeGreaterThan(100_000);
    expect(lines.length).toBeLessThan(200_000);
    expect(lines[1000]).toBe(`entry 1000 ${'x'.repeat(1000 % 50)}`);
  });

  test('a line longer than the limit arrives as the marker, and its neighbours intact', async () => {
    const file = writeTemp('long.log', `short\n${'y'.repeat(300_000)}\nafter\n${'z'.repeat(70)}`);
    expect(await readAll(file, 64)).toEqual(['short', OVERLONG_LINE_MARKER, 'after', OVERLONG_LINE_MARKER]);
  });

  test('a file without any newline is not held in memory as one line', async () => {
    const file = writeTemp('binary.bin', Buffer.alloc(8 * 1024 * 1024, 0x41));
    expect(await readAll(file)).toEqual([OVERLONG_LINE_MARKER]);
  });

  test('a slow consumer pauses reading: the file is not read far ahead of the lines consumed', async () => {
    const line = `203.0.113.1 - - [01/Jan/2025:00:00:00 +0000] "GET /docs HTTP/1.1" 200 1 "-" "UA"\n`;
    const file = writeTemp('big.log', line.repeat(300_000));
    const reader = await openLogLines(file);
    let consumed = 0;
    for await (const _line of reader) {
      if (++consumed === 10) {
        await sleep(200);
        break;
      }
    }
    expect(reader.sizeBytes).toBeGreaterThan(20_000_000);
    expect(reader.bytesRead()).toBeLessThan(2 * 1024 * 1024);
  });

  test('close() stops reading early and can be called again', async () => {
    const file = writeTemp('close.log', 'a\n'.repeat(1_000_000));
    const reader = await openLogLines(file);
    const iterator = reader[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toBe('a');
    reader.close();
    reader.close();
    expect(reader.bytesRead()).toBeLessThan(reader.sizeBytes);
  });
});

describe('LineLengthLimiter', () => {
  async function limit(chunks: Buffer[], maxLineBytes: number): Promise<string> {
    const output: Buffer[] = [];
    const limiter = Readable.from(chunks).pipe(new LineLengthLimiter(maxLineBytes));
    for await (const chunk of limiter) output.push(chunk as Buffer);
    return Buffer.concat(output).toString('utf8');
  }

  test('whatever the chunking, lines within the limit pass unchanged and longer ones become the marker', async () => {
    const lineArbitrary = fc.string({ unit: fc.constantFrom('a', 'b', 'é', ' '), maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArbitrary, { maxLength: 25 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 20 }),
        fc.boolean(),
        async (lines, cuts, maxLineBytes, trailingNewline) => {
          const text = lines.join('\n') + (trailingNewline && lines.length > 0 ? '\n' : '');
          const bytes = Buffer.from(text);
          const chunks: Buffer[] = [];
          let offset = 0;
          for (let index = 0; offset < bytes.length; index++) {
            const size = cuts[index % cuts.length] ?? 1;
            chunks.push(bytes.subarray(offset, offset + size));
            offset += size;
          }
          const expected = text
            .split('\n')
            .map((line) => (Buffer.byteLength(line) > maxLineBytes ? OVERLONG_LINE_MARKER : line))
            .join('\n');
          expect(await limit(chunks, maxLineBytes)).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
