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
  readonly rejectedByCode: Record<string, number> = {};
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
    const { accepted, rejected, rejectedByCode } = result ?? {};
    if (!isCount(accepted) || !isCount(rejected) || accepted + rejected > size || !codesAddUp(rejectedByCode, rejected)) {
      this.failure ??= {
        error: new DocwrightError(
          'invalid_send_result',
          `send must resolve to { accepted, rejected, rejectedByCode? } counts that add up to at most the ${size} hits sent.`,
        ),
      };
      return;
    }
    this.accepted += accepted;
    this.rejected += rejected;
    const codes = rejectedByCode ?? (rejected > 0 ? { unspecified: rejected } : {});
    for (const [code, count] of Object.entries(codes)) if (count > 0) this.rejectedByCode[code] = (this.rejectedByCode[code] ?? 0) + count;
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}

function codesAddUp(codes: Record<string, number> | undefined, rejected: number): boolean {
  if (codes === undefined) return true;
  if (typeof codes !== 'object') return false;
  let sum = 0;
  for (const count of Object.values(codes)) {
    if (!isCount(count)) return false;
    sum += count;
  }
  return sum === rejected;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
