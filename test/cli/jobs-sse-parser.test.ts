import { describe, expect, test } from 'vitest';
import { retryAfterSeconds } from '../../src/cli/jobs-api.js';
import { ServerSentEventParser, type ServerSentEvent } from '../../src/cli/jobs-sse-parser.js';

const STREAM = 'retry: 2000\n\nid: 1\nevent: job.created\ndata: {"a":1}\n\n: keep-alive\n\nid: 2\nevent: step\ndata: line one\ndata: line two\n\n';
const EXPECTED: ServerSentEvent[] = [
  { id: '1', type: 'job.created', data: '{"a":1}' },
  { id: '2', type: 'step', data: 'line one\nline two' },
];

function parseInChunks(text: string, size: number): { events: ServerSentEvent[]; parser: ServerSentEventParser } {
  const parser = new ServerSentEventParser();
  const events: ServerSentEvent[] = [];
  for (let index = 0; index < text.length; index += size) events.push(...parser.push(text.slice(index, index + size)));
  return { events, parser };
}

describe('ServerSentEventParser', () => {
  test('events, comments, multi-line data and retry, whatever the chunking', () => {
    for (const size of [1, 2, 3, 7, STREAM.length]) {
      const { events, parser } = parseInChunks(STREAM, size);
      expect(events, `chunks of ${size}`).toEqual(EXPECTED);
      expect(parser.retryMs).toBe(2000);
    }
  });

  test('CRLF and CR line endings, also when a CRLF is split across chunks', () => {
    for (const ending of ['\r\n', '\r']) {
      const text = STREAM.replaceAll('\n', ending);
      for (const size of [1, 2, 5, text.length]) expect(parseInChunks(text, size).events, `${JSON.stringify(ending)} / ${size}`).toEqual(EXPECTED);
    }
    // A CR at the end of one chunk and LF at the start of the next is one line ending, not two.
    const parser = new ServerSentEventParser();
    expect(parser.push('data: x\r')).toEqual([]);
    expect(parser.push('\ndata: y\r\n\r\n')).toEqual([{ id: undefined, type: 'message', data: 'x\ny' }]);
  });

  test('a BOM is dropped, an unfinished event waits, an event without data is not dispatched, the id persists', () => {
    const parser = new ServerSentEventParser();
    expect(parser.push('\uFEFFid: 7\nevent: ignored\n\n')).toEqual([]);
    expect(parser.push('data:no space\ndata')).toEqual([]);
    expect(parser.push('\n\n')).toEqual([{ id: '7', type: 'message', data: 'no space\n' }]);
    expect(parser.push('retry: soon\nid\ndata: z\n\n')).toEqual([{ id: '', type: 'message', data: 'z' }]);
    expect(parser.retryMs).toBeUndefined();
  });
});

describe('retryAfterSeconds', () => {
  test('delay-seconds and HTTP dates', () => {
    const now = Date.parse('2026-06-01T12:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Mon, 01 Jun 2026 12:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Mon, 01 Jun 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
  });
});
