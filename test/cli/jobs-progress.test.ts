import { describe, expect, test } from 'vitest';
import { createProgressPrinter } from '../../src/cli/jobs-progress.js';

describe('the progress of docwright jobs create --wait', () => {
  test('the pull request line is followed by the review controls the forge refused, one per line', () => {
    const lines: string[] = [];
    const printer = createProgressPrinter((line) => lines.push(line), 1);
    printer.handle({ id: 1, type: 'turn.started', data: { sequence: 1 } });
    printer.handle({
      id: 2,
      type: 'pull_request',
      data: {
        number: 1,
        url: 'https://gitlab.com/acme/docs/-/merge_requests/1',
        created: true,
        warnings: ['GitLab has no user named ghost: not requested as a reviewer.', 7],
      },
    });
    printer.handle({ id: 3, type: 'pull_request', data: { number: 1, url: 'https://gitlab.com/acme/docs/-/merge_requests/1', created: false } });
    expect(lines.slice(-3)).toEqual([
      '⇡ pull request opened: https://gitlab.com/acme/docs/-/merge_requests/1',
      '  ⚠ GitLab has no user named ghost: not requested as a reviewer.',
      '⇡ pull request updated: https://gitlab.com/acme/docs/-/merge_requests/1',
    ]);
  });
});
