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

function printed(data: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const printer = createProgressPrinter((line) => lines.push(line), 1);
  printer.handle({ id: 1, type: 'turn.completed', data: { sequence: 1, filesChanged: ['index.mdx'], finalMessage: 'Done.', problems: 0, ...data } });
  return lines;
}

describe('progress lines of a completed turn', () => {
  test('name the repository instruction file the turn followed, and say when it was cut', () => {
    expect(printed({ instructions: { path: 'AGENTS.md', bytes: 120, truncated: false } })).toContain("  ℹ followed the repository's AGENTS.md");
    expect(printed({ instructions: { path: '.mintlify/AGENTS.md', bytes: 90_000, truncated: true } })).toContain(
      "  ℹ followed the repository's .mintlify/AGENTS.md (truncated)",
    );
  });

  test('say nothing of instructions when the turn had none (or an older server sent no field)', () => {
    expect(printed({ instructions: null }).join('\n')).not.toContain('followed');
    expect(printed({}).join('\n')).not.toContain('followed');
  });
});
