import type { Clock } from '../../core/clock.js';

/** One log line about key-directory fetches that failed. */
export interface FetchFailureLine {
  /** The directory's host (the signer's, from a request header: never a client address). */
  host: string;
  reason: string;
  /** Failures of this host not logged since its last line. */
  suppressed: number;
  /** Failures of other hosts not logged since the last line, for the cap on all hosts. */
  suppressedOtherHosts?: number;
}

const HOST_QUIET_MS = 60_000;
/** Lines a minute for all hosts: a sender can name a new host (name.attacker.example) per hit. */
const LINES_PER_MINUTE = 20;
const MAX_HOSTS = 1_000;

/**
 * Key-directory failures as one line each, with no stack trace (the reason is the whole
 * story: refused address, status, timeout), at most one line per host a minute and 20 a
 * minute in all; the lines left out are counted on the next line written. The URL comes
 * from a request header, so without this anyone could fill the log.
 */
export class FetchFailureLog {
  private readonly hosts = new Map<string, { quietUntil: number; suppressed: number }>();
  private windowStart = -Infinity;
  private linesInWindow = 0;
  private suppressedOtherHosts = 0;

  constructor(
    private readonly clock: Clock,
    private readonly write: (line: FetchFailureLine) => void,
  ) {}

  report(agentUrl: string, error: unknown): void {
    const host = hostOf(agentUrl);
    const now = this.clock.now();
    const seen = this.hosts.get(host);
    if (seen !== undefined && seen.quietUntil > now) {
      seen.suppressed++;
      return;
    }
    if (now - this.windowStart >= HOST_QUIET_MS) {
      this.windowStart = now;
      this.linesInWindow = 0;
    }
    if (this.linesInWindow >= LINES_PER_MINUTE) {
      this.suppressedOtherHosts++;
      return;
    }
    this.linesInWindow++;
    this.hosts.delete(host);
    // The oldest host's memory goes first: at worst it gets a line a little sooner.
    while (this.hosts.size >= MAX_HOSTS) this.hosts.delete(this.hosts.keys().next().value!);
    this.hosts.set(host, { quietUntil: now + HOST_QUIET_MS, suppressed: 0 });
    const line: FetchFailureLine = { host, reason: error instanceof Error ? error.message : String(error), suppressed: seen?.suppressed ?? 0 };
    if (this.suppressedOtherHosts > 0) line.suppressedOtherHosts = this.suppressedOtherHosts;
    this.suppressedOtherHosts = 0;
    this.write(line);
  }
}

function hostOf(agentUrl: string): string {
  try {
    return new URL(agentUrl).host;
  } catch {
    return agentUrl.slice(0, 255);
  }
}
