export type ChangeKind = 'written' | 'edited' | 'deleted' | 'moved-from' | 'moved-to';

export interface FileChange {
  path: string;
  kind: ChangeKind;
}

/**
 * Remembers which workspace files the tools changed during a run, so the orchestrator
 * can summarise the run and knows whether there is anything to commit.
 */
export class ChangeTracker {
  private readonly latest = new Map<string, ChangeKind>();
  private pending = new Set<string>();

  record(path: string, kind: ChangeKind): void {
    this.pending.add(path);
    // Re-inserting moves the path to the end, keeping the map in order of last change.
    this.latest.delete(path);
    this.latest.set(path, kind);
  }

  /** Every path touched, sorted. */
  paths(): string[] {
    return [...this.latest.keys()].sort();
  }

  /** Paths changed since the previous call (for the docs check's incremental index). */
  takePending(): string[] {
    const paths = [...this.pending];
    this.pending = new Set();
    return paths;
  }

  /** The last change made to each touched path, in the order the changes happened. */
  changes(): FileChange[] {
    return [...this.latest].map(([path, kind]) => ({ path, kind }));
  }
}
