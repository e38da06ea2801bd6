import { DocwrightError } from '../../core/errors.js';

/**
 * A tool call the model got wrong (bad path, no match, file too large, ...). It is not a
 * failure of the run: the toolset hands the message back to the model as `{ error }` so
 * the model can correct itself and the loop goes on.
 */
export class ToolFailure extends DocwrightError {
  constructor(message: string) {
    super('tool_error', message, { status: 400 });
    this.name = 'ToolFailure';
  }
}

export function isToolFailure(value: unknown): value is ToolFailure {
  return value instanceof ToolFailure;
}
