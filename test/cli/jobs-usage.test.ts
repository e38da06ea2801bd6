import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { jobsCommand } from '../../src/cli/commands/jobs-command.js';
import { readPrompt } from '../../src/cli/jobs-prompt.js';

/** Parses in-process, as the real CLI would, and returns the exit code and what went to stderr. */
async function parse(args: string[]): Promise<{ exitCode: number; stderr: string }> {
  let stderr = '';
  const program = new Command('docwright').exitOverride();
  const jobs = program.addCommand(jobsCommand()).commands[0]!;
  for (const command of [jobs, ...jobs.commands]) {
    command.configureOutput({ writeErr: (text) => (stderr += text), writeOut: () => undefined });
  }
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return { exitCode: error.exitCode, stderr };
    throw error;
  }
  return { exitCode: 0, stderr };
}

describe('jobs usage errors exit 2 before any request', () => {
  afterEach(() => vi.unstubAllEnvs());

  test.each([
    [['jobs', 'message', 'job1', '--project', 'p', '--prompt', 'a', '--prompt-file', '-'], 'use either --prompt or --prompt-file, not both'],
    [['jobs', 'create', '--project', 'p'], "required option '--prompt <text>' (or --prompt-file <file>) not specified"],
    [['jobs', 'create', '--project', 'p', '--prompt-file', '/nonexistent/prompt.md'], 'cannot read --prompt-file /nonexistent/prompt.md: ENOENT'],
    [['jobs', 'create', '--project', 'p', '--prompt', 'a', '--timeout', '5'], '--timeout only applies with --wait'],
    [['jobs', 'wait', 'job1', '--project', 'p', '--timeout', 'soon'], '--timeout must be a positive number of seconds (got "soon")'],
    [['jobs', 'wait', 'job1', '--project', 'p', '--timeout', '0'], '--timeout must be a positive number of seconds (got "0")'],
    [['jobs', 'list', '--project', 'p', '--limit', '101'], '--limit must be a whole number from 1 to 100 (got "101")'],
    [['jobs', 'list', '--project', 'p', '--offset', '-1'], '--offset must be a whole number'],
    [['jobs', 'list', '--project', 'p', '--status', 'done'], 'Allowed choices are active, completed, archived, failed'],
    [['jobs', 'get'], "missing required argument 'id'"],
    [['jobs', 'get', 'job1'], 'pass --project ID or set DOCWRIGHT_PROJECT'],
    [['jobs', 'frobnicate'], "unknown command 'frobnicate'"],
  ])('%j', async (args, message) => {
    vi.stubEnv('DOCWRIGHT_PROJECT', '');
    vi.stubEnv('DOCWRIGHT_API_KEY', '');
    const result = await parse(args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('(run with --help for usage)');
  });

  test('help exits 0', async () => {
    expect((await parse(['jobs', 'create', '--help'])).exitCode).toBe(0);
  });
});

describe('readPrompt', () => {
  test('reads a prompt file as it is, and takes --prompt as given', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'docwright-prompt-')), 'brief.md');
    writeFileSync(file, 'Add a page\n\nwith two paragraphs\n');
    expect(await readPrompt({ promptFile: file })).toEqual({ ok: true, prompt: 'Add a page\n\nwith two paragraphs\n' });
    expect(await readPrompt({ prompt: '' })).toEqual({ ok: true, prompt: '' });
  });
});
