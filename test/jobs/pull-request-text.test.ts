import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { pullRequestBody, pullRequestTitle, type PullRequestTurn } from '../../src/jobs/pull-request-text.js';
import type { JobProblem } from '../../src/jobs/job.js';
import { activeConstructs, attackText, visible } from '../helpers/active-markdown.js';

const turnArbitrary = fc.record({
  prompt: attackText,
  finalMessage: fc.option(attackText, { nil: null }),
  filesChanged: fc.array(attackText, { maxLength: 4 }),
  commit: fc.option(fc.stringMatching(/^[0-9a-f]{40}$/), { nil: null }),
});
const problemArbitrary: fc.Arbitrary<JobProblem> = fc.record({ path: attackText, line: fc.option(fc.nat(), { nil: undefined }), message: attackText, kind: attackText });

function turnsOf(drafts: Array<Omit<PullRequestTurn, 'sequence'>>): PullRequestTurn[] {
  return drafts.map((draft, index) => ({ ...draft, sequence: index + 1 }));
}

// Lines Docwright writes itself; everything untrusted is inside a blockquote (`>`).
const STRUCTURE_LINES = [
  /^$/,
  /^Opened by Docwright for job `[^`]+`\. Each instruction below is one agent turn on this branch\.$/,
  /^### (Instruction|Follow-up \d+|Documentation problems left|Documentation check)$/,
  /^The agent answered:$/,
  /^Files changed( in `[0-9a-f]{12}`)?:$/,
  /^- (`+)( ?).*\2\1$/,
  /^- (`+)( ?).*\2\1 \(.*\): .*$/,
  /^- … and \d+ more$/,
  /^No files changed in this turn\.$/,
  /^The final `check_docs` run (still reports:|reported no problems\.)$/,
];

describe('pull request text properties', () => {
  test('no pull request body or title carries an active construct, whatever the turns and problems say', () => {
    fc.assert(
      fc.property(fc.array(turnArbitrary, { minLength: 1, maxLength: 3 }), fc.array(problemArbitrary, { maxLength: 3 }), (drafts, problems) => {
        const turns = turnsOf(drafts);
        expect(activeConstructs(pullRequestBody({ jobId: 'J9abc', turns, problems }))).toEqual([]);
        expect(activeConstructs(pullRequestTitle(turns[0]!.prompt))).toEqual([]);
      }),
      { numRuns: 1_500 },
    );
  });

  test('untrusted text cannot add, remove or reshape the structure Docwright writes', () => {
    fc.assert(
      fc.property(fc.array(turnArbitrary, { minLength: 1, maxLength: 3 }), fc.array(problemArbitrary, { maxLength: 3 }), (drafts, problems) => {
        const turns = turnsOf(drafts);
        const body = pullRequestBody({ jobId: 'J9abc', turns, problems });
        const lines = body.split('\n');
        for (const line of lines) {
          if (line.startsWith('>')) continue;
          expect(STRUCTURE_LINES.some((shape) => shape.test(line)), `unexpected top-level line ${JSON.stringify(line)}`).toBe(true);
        }
        const headings = lines.filter((line) => line.startsWith('### '));
        expect(headings).toEqual([...turns.map((turn) => (turn.sequence === 1 ? '### Instruction' : `### Follow-up ${turn.sequence - 1}`)), problems.length > 0 ? '### Documentation problems left' : '### Documentation check']);
        const fileLines = lines.filter((line) => /^- `/.test(line));
        expect(fileLines).toHaveLength(turns.reduce((sum, turn) => sum + turn.filesChanged.length, 0) + problems.length);
      }),
      { numRuns: 500 },
    );
  });

});

describe('pull request text', () => {
  test('keeps its structure and shows what the model wrote, inert', () => {
    const body = pullRequestBody({
      jobId: 'J9abc',
      turns: [
        {
          sequence: 1,
          prompt: 'Add a page\n/merge',
          finalMessage: 'Done. Fixes #12, cc @alice ![x](https://evil.test/p.png) <img src=https://evil.test/q.png>\n```\nunclosed fence',
          filesChanged: ['docs/troubleshooting.mdx', 'docs.json'],
          commit: 'abcdef0123456789abcdef0123456789abcdef01',
        },
      ],
      problems: [{ path: 'docs/@x.mdx', line: 3, kind: 'broken-link', message: 'Link to #12 is broken' }],
    });
    expect(activeConstructs(body)).toEqual([]);
    expect(visible(body)).toBe(
      [
        'Opened by Docwright for job `J9abc`. Each instruction below is one agent turn on this branch.',
        '',
        '### Instruction',
        '',
        '> Add a page',
        '> /merge',
        '',
        'The agent answered:',
        '',
        '> Done. Fixes #12, cc @alice x (https://evil.test/p.png) <img src=https://evil.test/q.png>',
        '> ```',
        '> unclosed fence',
        '',
        'Files changed in `abcdef012345`:',
        '- `docs/troubleshooting.mdx`',
        '- `docs.json`',
        '',
        '### Documentation problems left',
        '',
        'The final `check_docs` run still reports:',
        '- `docs/@x.mdx:3` (broken-link): Link to #12 is broken',
      ].join('\n'),
    );
  });

  test('the title follows the first prompt line, inert and short', () => {
    expect(visible(pullRequestTitle('\n  Fix the @docs team page, closes #3\nmore'))).toBe('Docs: Fix the @docs team page, closes #3');
    expect(activeConstructs(pullRequestTitle('Fix the @docs team page, closes #3'))).toEqual([]);
    expect(Array.from(visible(pullRequestTitle('x'.repeat(200))))).toHaveLength(72);
  });

  test('a huge final message cannot push the body over GitHub’s limit', () => {
    const turns = Array.from({ length: 30 }, (_, index) => ({ sequence: index + 1, prompt: 'p'.repeat(5_000), finalMessage: '@a '.repeat(5_000), filesChanged: ['a.md'], commit: null }));
    const body = pullRequestBody({ jobId: 'J', turns, problems: [] });
    expect(body.length).toBeLessThanOrEqual(60_000);
    expect(body).toContain('… (cut: the full conversation is in the job');
    expect(activeConstructs(body)).toEqual([]);
  });
});
