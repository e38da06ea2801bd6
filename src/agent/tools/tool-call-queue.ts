/**
 * Keeps one toolset's calls in the order the model issued them. The AI SDK starts every
 * tool call of a step at once (each `execute` in issue order, then awaits them together),
 * so without this three `edit_file` calls to one page each read the original text and
 * the last write wins, while all three report success.
 *
 * A changing call waits for every call issued before it; a read-only call waits only for
 * the changing calls issued before it, so reads of one step still run side by side but a
 * read issued after a write sees that write. `enter` must be called synchronously at the
 * start of `execute`, before any `await`: the order of `enter` calls is the order kept.
 */
export class ToolCallQueue {
  /** Settles when every changing call entered so far has finished. */
  private lastChange: Promise<unknown> = Promise.resolve();
  /** Read-only calls entered since the last changing call, which the next change waits for. */
  private readsSinceChange: Array<Promise<unknown>> = [];

  enter<T>(kind: 'read' | 'change', operation: () => Promise<T>): Promise<T> {
    if (kind === 'read') {
      const result = this.lastChange.then(operation);
      this.readsSinceChange.push(settled(result));
      return result;
    }
    const before = this.readsSinceChange.length === 0 ? this.lastChange : Promise.all([this.lastChange, ...this.readsSinceChange]);
    const result = before.then(operation);
    this.lastChange = settled(result);
    this.readsSinceChange = [];
    return result;
  }

  /** Settles when every call entered so far has finished (for the orchestrator's final check). */
  idle(): Promise<void> {
    return Promise.all([this.lastChange, ...this.readsSinceChange]).then(() => undefined);
  }
}

// A failed call must not stop the ones after it: the queue waits for it to end, whatever the outcome.
function settled(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    () => undefined,
  );
}
