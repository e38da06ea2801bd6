import { DocwrightError } from '../../core/errors.js';
import type { ImportHit, SendHits, SendResult } from './import-types.js';

/**
 * Sends batches with at most `maxInFlight` unanswered at a time. `submit` returns once
 * there is room for another batch, so the caller reads no further ahead than that:
 * this is the backpressure that keeps a multi-gigabyte import in constant memory.
 */
export class BatchSender {
  accepted = 0;
  rejected = 0;
  private readonly inFlight: Array<Promise<void>> = [];
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly send: SendHits,
    private readonly maxInFlight: number,
  ) {}

  async submit(hits: ImportHit[]): Promise<void> {
    this.throwIfFailed();
    // Each outcome is recorded, never left to reject on its own, so a failure while
    // another batch is awaited cannot become an unhandled rejection.
    const settled = Promise.resolve()
      .then(() => this.send(hits))
      .then(
        (result) => this.record(result, hits.length),
        (error: unknown) => {
          this.failure ??= { error };
        },
      );
    this.inFlight.push(settled);
    while (this.inFlight.length >= this.maxInFlight) await this.inFlight.shift();
    this.throwIfFailed();
  }

  /** Waits for every batch; throws the first send failure. */
  async drain(): Promise<void> {
    while (this.inFlight.length > 0) await this.inFlight.shift();
    this.throwIfFailed();
  }

  /** Waits for every batch without throwing, for when the import is stopping anyway. */
  async settle(): Promise<void> {
    while (this.inFlight.length > 0) await this.inFlight.shift();
  }

  /** `result` is what the server answered, typed or not: it is checked here. */
  private record(result: Partial<SendResult> | undefined, size: number): void {
    const { accepted, rejected } = result ?? {};
    if (!isCount(accepted) || !isCount(rejected) || accepted + rejected > size) {
      this.failure ??= {
        error: new DocwrightError('invalid_send_result', `send must resolve to { accepted, rejected } counts that add up to at most the ${size} hits sent.`),
      };
      return;
    }
    this.accepted += accepted;
    this.rejected += rejected;
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
