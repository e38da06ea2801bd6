import { expect } from 'vitest';
import { DocwrightError } from '../../src/core/errors.js';

/** The DocwrightError `promise` rejects with; fails the test if it resolves or rejects otherwise. */
export async function rejection(promise: Promise<unknown>): Promise<DocwrightError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DocwrightError);
  return error as DocwrightError;
}
