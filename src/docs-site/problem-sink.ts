import type { DocsProblem } from './docs-problem.js';

/**
 * Collects problems up to a cap: a hostile config can repeat one mistake a million times,
 * and a report that long helps no one. Past the cap one `limit` problem says so.
 */
export class ProblemSink {
  readonly problems: DocsProblem[] = [];
  private dropped = 0;

  constructor(
    private readonly path: string,
    private readonly cap: number,
  ) {}

  push(problem: DocsProblem, line?: number): void {
    if (line !== undefined) problem.line = line;
    if (this.problems.length < this.cap) this.problems.push(problem);
    else this.dropped += 1;
  }

  /** The problems, with a closing `limit` problem when some were dropped. */
  finish(): DocsProblem[] {
    if (this.dropped === 0) return this.problems;
    return [
      ...this.problems,
      { path: this.path, kind: 'limit', message: `${this.dropped} more problems in the site configuration were left out (more than ${this.cap}).` },
    ];
  }
}
