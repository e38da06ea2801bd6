import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, test, vi } from 'vitest';
import { createLogger } from '../../src/app/logger.js';
import { lazyChildLoggerFactory } from '../../src/app/lazy-child-logger.js';

function capture(level: 'warn' | 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger({ level, destination }) as unknown as FastifyBaseLogger;
  return { logger, lines };
}

describe('lazyChildLoggerFactory', () => {
  test('builds no pino child while nothing is written at an enabled level', () => {
    const { logger, lines } = capture('warn');
    const childSpy = vi.spyOn(logger, 'child');
    const requestLogger = lazyChildLoggerFactory(logger, { requestId: 'r-1' }, {});
    requestLogger.info('incoming request');
    requestLogger.debug('details');
    expect(childSpy).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    expect(requestLogger.level).toBe('warn');
  });

  test('writes enabled lines through a real child, with the request id and redaction', () => {
    const { logger, lines } = capture('info');
    const requestLogger = lazyChildLoggerFactory(logger, { requestId: 'r-2' }, {});
    requestLogger.info({ token: 'ghp_secret' }, 'request completed');
    requestLogger.error('broke');
    expect(lines.map((line) => [line.requestId, line.msg, line.token])).toEqual([
      ['r-2', 'request completed', '[REDACTED]'],
      ['r-2', 'broke', undefined],
    ]);
    const nested = requestLogger.child({ jobId: 'j-1' });
    nested.warn('nested');
    expect(lines.at(-1)).toMatchObject({ requestId: 'r-2', jobId: 'j-1', msg: 'nested' });
  });

  test('a route with its own level gets an ordinary child at once', () => {
    const { logger, lines } = capture('warn');
    const requestLogger = lazyChildLoggerFactory(logger, { requestId: 'r-3' }, { level: 'info' });
    requestLogger.info('route-level info');
    expect(lines).toMatchObject([{ requestId: 'r-3', msg: 'route-level info' }]);
  });
});
