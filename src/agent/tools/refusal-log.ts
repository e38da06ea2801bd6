import type { RefusedFile } from './write-policy.js';
import { compareCodePoints } from './workspace-glob.js';

/** The paths the write policy refused during a run, each with its latest reason. */
export class RefusalLog {
  private readonly refused = new Map<string, string>();

  record(path: string, reason: string): void {
    this.refused.set(path, reason);
  }

  /** Sorted by path. */
  list(): RefusedFile[] {
    return [...this.refused].map(([path, reason]) => ({ path, reason })).sort((left, right) => compareCodePoints(left.path, right.path));
  }
}
