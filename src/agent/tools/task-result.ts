import type { TaskOutcome } from './tool-worker-pool.js';
import { ToolFailure } from './tool-failure.js';

/**
 * The result of a file tool's worker task, or the failure to hand the model: `doing`
 * names the work in its message ("Reading guides/big.md"). A crashed worker is an
 * internal error, not the model's.
 */
export function taskResult<Result>(outcome: TaskOutcome<Result>, doing: string): Result {
  switch (outcome.status) {
    case 'done':
      return outcome.result;
    case 'failure':
      throw new ToolFailure(outcome.message);
    case 'timeout':
      throw new ToolFailure(`${doing} took longer than ${outcome.timeoutMs} ms and was stopped.`);
    case 'out-of-memory':
      throw new ToolFailure(`${doing} needed more than ${outcome.maxHeapMb} MB of memory and was stopped.`);
    case 'crashed':
      throw new Error(`A tool worker failed: ${outcome.message}`);
  }
}
