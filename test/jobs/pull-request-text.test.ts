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
const problemArbitrary: fc.Arbitrary<JobProblem> = fc.record({
  path: attackText,
  line: fc.option(fc.nat(), { nil: undefined }),
  message: attackText,
  kind: attackText,
  new: fc.option(fc.boolean(), { nil: undefined }),
});
const preExistingArbitrary = fc.dictionary(attackText, fc.nat({ max: 1000 }), { maxKeys: 3 });

function turnsOf(drafts: Array<Omit<PullRequestTurn, 'sequence'>>): PullRequestTurn[] {
  return drafts.map((draft, index) => ({ ...draft, sequence: index + 1 }));
}

// Lines Docwright writes itself; everything untrusted is inside a blockquote (`>`).
const STRUCTURE_LINES = [
  /^$/,
  /^Opened by Docwright for job `[^`]+`\. Each instruction below is one agent turn on this branch\.$/,
  /^### (Instruction|Follow-up \d+|Documentation check)$/,
  /^The agent answered:$/,
  /^Files changed( in `[0-9a-f]{12}`)?:$/,
  /^- (`+)( ?).*\2\1$/,
  /^- (`+)( ?).*\2\1 \(.*\): .*$/,
  /^- … and \d+ more$/,
  /^No files changed in this turn\.$/,
  /^\*\*\d+ new problems?\*\* introduced by this change:$/,
  /^This change introduced no documentation problems\.$/,
  /^The base branch already had \d+ problems? \(.*\); this change did not cause them\.$/,
];

describe('pull request text properties', () => {
  test('no pull request body or title carries an active construct, whatever the turns and problems say', () => {
    fc.assert(
      fc.property(
        fc.array(turnArbitrary, { minLength: 1, maxLength: 3 }),
        fc.array(problemArbitrary, { maxLength: 3 }),
        preExistingArbitrary,
        (drafts, problems, preExisting) => {
          const turns = turnsOf(drafts);
          expect(activeConstructs(pullRequestBody({ jobId: 'J9abc', turns, problems, preExisting }))).toEqual([]);
          expect(activeConstructs(pullRequestTitle(turns[0]!.prompt))).toEqual([]);
        },
      ),
      { numRuns: 1_500 },
    );
  });

  test('untrusted text cannot add, remove or reshape the structure Docwright writes', () => {
    fc.assert(
      fc.property(
        fc.array(turnArbitrary, { minLength: 1, maxLength: 3 }),
        fc.array(problemArbitrary, { maxLength: 3 }),
        preExistingArbitrary,
        (drafts, problems, preExisting) => {
          const turns = turnsOf(drafts);
          const body = pullRequestBody({ jobId: 'J9abc', turns, problems, preExisting });
          const lines = body.split('\n');
          for (const line of lines) {
            if (line.startsWith('>')) continue;
            expect(
              STRUCTURE_LINES.some((shape) => shape.test(line)),
              `unexpected top-level line ${JSON.stringify(line)}`,
            ).toBe(true);
          }
          const headings = lines.filter((line) => line.startsWith('### '));
          const turnHeadings = turns.map((turn) => (turn.sequence === 1 ? '### Instruction' : `### Follow-up ${turn.sequence - 1}`));
          // The check comes first when the change introduced problems, last otherwise.
          const broken = problems.some((problem) => problem.new !== false);
          expect(headings).toEqual(broken ? ['### Documentation check', ...turnHeadings] : [...turnHeadings, '### Documentation check']);
          // Every new problem is listed; pre-existing ones only counted.
          const fileLines = lines.filter((line) => line.startsWith('- `'));
          const listed = problems.filter((problem) => problem.new !== false).length;
          expect(fileLines).toHaveLength(turns.reduce((sum, turn) => sum + turn.filesChanged.length, 0) + listed);
          const oldTotal = Object.values(preExisting).reduce((sum, count) => sum + count, 0);
          expect(lines.some((line) => line.startsWith(`The base branch already had ${oldTotal} `))).toBe(oldTotal > 0);
        },
      ),
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
      problems: [
        { path: 'docs/@x.mdx', line: 3, kind: 'broken-link', message: 'Link to #12 is broken', new: true },
        { path: 'docs/old.mdx', line: 1, kind: 'broken-link', message: 'An old problem is counted, not listed', new: false },
      ],
      preExisting: { 'broken-link': 2, navigation: 1 },
    });
    expect(activeConstructs(body)).toEqual([]);
    expect(visible(body)).toBe(
      [
        'Opened by Docwright for job `J9abc`. Each instruction below is one agent turn on this branch.',
        '',
        // New problems come first, before the turns: a reviewer must see them.
        '### Documentation check',
        '',
        '**1 new problem** introduced by this change:',
        '',
        '- `docs/@x.mdx:3` (broken-link): Link to #12 is broken',
        '',
        'The base branch already had 3 problems (2 broken-link, 1 navigation); this change did not cause them.',
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
      ].join('\n'),
    );
  });

  test('a turn a budget stopped says so first, inert', () => {
    const body = pullRequestBody({
      jobId: 'J9abc',
      turns: [{ sequence: 1, prompt: 'Rewrite everything', finalMessage: 'Stopped early.', filesChanged: ['a.mdx'], commit: null }],
      problems: [],
      stoppedEarly: 'The agent reached its step budget (50 steps) before finishing. @alice',
    });
    expect(activeConstructs(body)).toEqual([]);
    const sections = body.split('\n\n');
    expect(visible(sections[1] ?? '')).toMatch(
      /^> \[!WARNING\]\n> \*\*The last turn stopped before the agent finished:\*\* The agent reached its step budget \(50 steps\)/,
    );
  });

  test('the title follows the first prompt line, inert and short', () => {
    expect(visible(pullRequestTitle('\n  Fix the @docs team page, closes #3\nmore'))).toBe('Docs: Fix the @docs team page, closes #3');
    expect(activeConstructs(pullRequestTitle('Fix the @docs team page, closes #3'))).toEqual([]);
    expect(Array.from(visible(pullRequestTitle('x'.repeat(200))))).toHaveLength(72);
  });

  test('a huge final message cannot push the body over GitHub’s limit', () => {
    const turns = Array.from({ length: 30 }, (_, index) => ({
      sequence: index + 1,
      prompt: 'p'.repeat(5_000),
      finalMessage: '@a '.repeat(5_000),
      filesChanged: ['a.md'],
      commit: null,
    }));
    const body = pullRequestBody({ jobId: 'J', turns, problems: [] });
    expect(body.length).toBeLessThanOrEqual(60_000);
    expect(body).toContain('… (cut: the full conversation is in the job');
    expect(activeConstructs(body)).toEqual([]);
  });
});
