/**
 * Per project, whether its last turn in this process found a repository instruction file:
 * the bet of the next turn's first model request (see deferred-system-prompt.ts). A project
 * with a file waits for the clone; one without (or not seen yet) sends at once. Bounded:
 * the least recently used project is forgotten first.
 */
export class InstructionsMemo {
  private readonly seen = new Map<string, boolean>();

  constructor(private readonly maxEntries = 10_000) {}

  /** True when the project's last turn found a file; false or undefined otherwise. */
  hadFile(projectId: string): boolean | undefined {
    return this.seen.get(projectId);
  }

  record(projectId: string, found: boolean): void {
    this.seen.delete(projectId);
    this.seen.set(projectId, found);
    if (this.seen.size > this.maxEntries) {
      const oldest = this.seen.keys().next();
      if (oldest.done !== true) this.seen.delete(oldest.value);
    }
  }
}
