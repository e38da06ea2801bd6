import { describe, expect, test } from 'vitest';
import { createProgressPrinter } from '../../src/cli/jobs-progress.js';

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
