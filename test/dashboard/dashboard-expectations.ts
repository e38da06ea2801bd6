import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seriousAxeViolations, type PageProblems } from './dashboard-harness.js';

/** No serious or critical axe-core violation on the page as it is now. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  const violations = await seriousAxeViolations(page);
  expect(violations, `${name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
}

/** No uncaught exception and no console error (a CSP violation is one) in the page so far. */
export function expectNoProblems(problems: PageProblems): void {
  expect(problems.pageErrors).toEqual([]);
  expect(problems.consoleErrors).toEqual([]);
}
