import { expect } from 'vitest';
import { ToolFailure } from '../../../src/agent/tools/tool-failure.js';

/** The message of the ToolFailure the promise rejects with; fails the test on anything else. */
export async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolFailure);
  return (error as ToolFailure).message;
}
