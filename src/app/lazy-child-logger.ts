import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger that becomes a real pino child only when a line is written at an
 * enabled level. Fastify makes a child per request to tag lines with the request id, and
 * pino's child() serializes and redacts those bindings at once: a noticeable share of a
 * cheap request (the poll route), spent even when nothing is ever logged.
 */
class LazyChildLogger {
  private real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  get level(): LevelWithSilentOrString {
    return this.real?.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.child$().level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return levelEnabled(this.real ?? this.parent, level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.child$().child(bindings, options);
  }

  private write(level: LevelName, args: unknown[]): void {
    if (this.real === undefined && !levelEnabled(this.parent, level)) return;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- pino's overloaded LogFn takes no spread of unknown[]; tsc needs this
    (this.child$()[level] as (...values: unknown[]) => void)(...args);
  }

  private child$(): FastifyBaseLogger {
    this.real ??= this.parent.child(this.bindings);
    return this.real;
  }
}

/** pino answers this; a logger that cannot is asked to write, as if every level were on. */
function levelEnabled(logger: FastifyBaseLogger, level: string): boolean {
  const withCheck = logger as FastifyBaseLogger & { isLevelEnabled?: (name: string) => boolean };
  return typeof withCheck.isLevelEnabled === 'function' ? withCheck.isLevelEnabled(level) : true;
}

/** Fastify's `childLoggerFactory`: lazy unless the route sets its own level or serializers. */
export function lazyChildLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new LazyChildLogger(logger, bindings);
}
