/**
 * One request as read from a log line, before the page rule decides whether it is a page
 * view. Parsers of every format produce this shape so the rest of the import is
 * format-agnostic.
 */
export interface LogRecord {
  /** Milliseconds since the epoch, UTC. */
  timestamp: number;
  /** As logged; undefined when the log has no method (then GET is assumed by the page rule's caller). */
  method: string | undefined;
  /** The raw request target: path with query, or an absolute URL; empty when the request line was unusable. */
  target: string;
  status: number | undefined;
  /** True when the log had no status and `status` is the parser's assumption (200), which is not stored. */
  statusAssumed?: boolean;
  ip: string | undefined;
  userAgent: string | undefined;
  referrer: string | undefined;
  accept: string | undefined;
  visitorId: string | undefined;
}

/** `salvaged`: the line was damaged (a missing closing quote) and read by the lenient fallback. */
export type LineParseResult = { ok: true; record: LogRecord; salvaged?: boolean } | { ok: false; reason: string };

export type LineParser = (line: string) => LineParseResult;

export const malformed = (reason: string): LineParseResult => ({ ok: false, reason });
