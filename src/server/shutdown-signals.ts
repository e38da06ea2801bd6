import type { EventEmitter } from 'node:events';
import { constants } from 'node:os';
import pino from 'pino';
import type { Logger } from '../app/logger.js';

/** What a process killed by `signal` reports by shell convention: 128 + its number (SIGINT 130, SIGTERM 143). */
export const signalExitCode = (signal: NodeJS.Signals): number => 128 + constants.signals[signal];

/** Time allowed after the grace period for handing back, closing the server and the store. */
export const SHUTDOWN_MARGIN_MS = 10_000;

/**
 * Exits once every log line is out, in order. pino writes stdout asynchronously (sonic-boom);
 * its flush at exit writes what is queued synchronously, which can land before a write
 * still in flight ("stopped" before "closing the store"). Ending the stream instead writes
 * the rest after that write, then closes (stdout itself stays open). At most a second.
 */
function exitAfterLogs(logger: Logger, code: number): void {
  process.exitCode = code;
  const exit = () => process.exit(code);
  setTimeout(exit, 1_000);
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as Partial<EventEmitter & { end(): void }> | undefined;
  if (typeof stream?.end !== 'function' || typeof stream.once !== 'function') return exit();
  stream.once('close', exit);
  stream.end();
}

/**
 * On the first SIGTERM or SIGINT, runs `stop` and exits 0 when it is done (1 if it failed,
 * or if it is not done `deadlineMs` later: something hangs, and the process must still
 * go). A second signal exits at once with 128 + its number: running turns keep their
 * queue rows until their leases lapse, then other workers take them over, and the next
 * start's sweep removes their workspaces; nothing else is held across the exit.
 */
export function exitOnShutdownSignals(options: { logger: Logger; stop: () => Promise<void>; deadlineMs: number }): void {
  const { logger } = options;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting at once (running turns are retried once their leases lapse)');
      process.exit(signalExitCode(signal));
    }
    stopping = true;
    logger.info({ signal }, 'shutdown requested');
    const timer = setTimeout(() => {
      logger.error({ afterSeconds: options.deadlineMs / 1000 }, 'shutdown timed out; exiting');
      exitAfterLogs(logger, 1);
    }, options.deadlineMs);
    timer.unref();
    options.stop().then(
      () => {
        logger.info('stopped');
        exitAfterLogs(logger, 0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exitAfterLogs(logger, 1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
