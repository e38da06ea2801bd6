import { afterEach, describe, expect, test } from 'vitest';
import { endlessToolLoop, replyWithText, scriptedToolCalls, type FakeModelScript } from '../fakes/fake-model-server.js';
import { branches, showFile } from '../helpers/docs-repository.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { assertRequestsMatchSdkTypes } from '../helpers/provider-request-types.js';
import { BACKENDS } from '../helpers/test-database.js';
import { runJob } from './misbehaving-model-kit.js';

/**
 * Models that misuse the tools, end to end: the real AI SDK and openai-compatible provider
 * against the fake's Chat Completions stream, the real tools on a real repository, the real
 * worker and database. For each: the job's status and error code, what reached the branch,
 * and how many provider calls were made. Provider failures are in
 * misbehaving-models-provider.test.ts.
 */

const QUICKSTART_EDIT = { path: 'quickstart.mdx', oldString: 'Install the CLI.', newString: 'Install the CLI with `npm i -g docs-cli`.' };

/** A bad call first; the model reads the error it got back and then makes the right one. */
function recoversFrom(bad: { name: string; arguments: object }): FakeModelScript {
  return scriptedToolCalls([bad, { name: 'edit_file', arguments: QUICKSTART_EDIT }], 'Documented the install command.');
}

describe.each(BACKENDS)('models that misuse the tools [%s]', (dialect) => {
  let h: JobHarness | undefined;
  afterEach(async () => h?.close());

  async function expectRecovered(script: FakeModelScript): Promise<string> {
    h = await createJobHarness(dialect, script);
    const { job, turn } = await runJob(h, 'Document the install command');
    expect(job).toMatchObject({ status: 'completed', error: null });
    expect(job.prLink).not.toBeNull();
    expect(showFile(h.repository, `docwright/${job.id}`, 'quickstart.mdx')).toContain('Install the CLI with `npm i -g docs-cli`.');
    // The bad call, the good one, the answer: nothing retried, no fix round.
    expect(h.model.requests).toHaveLength(3);
    expect(turn.steps).toMatchObject([{ ok: false }, { toolName: 'edit_file', ok: true }]);
    // What the model was shown for its bad call: the first tool result of the second request.
    return h.model.requests[1]!.toolResults[0]!;
  }

  test('arguments that are not a JSON object: the model gets an error result and recovers', async () => {
    // The fake writes `JSON.stringify(arguments)` on both protocols (OpenAI `function.arguments`,
    // Anthropic `partial_json`), so it cannot put unparsable text on the
    // wire. The closest it can send is what models do send: the arguments JSON-encoded twice,
    // a JSON string holding a broken object, which fails the same parse-and-validate step.
    const shown = await expectRecovered(recoversFrom({ name: 'read_file', arguments: new String('{"path": "quickstart.mdx"') }));
    expect(shown).toContain('Invalid input for tool read_file');
    expect(shown).toMatch(/expected object/i);
  });

  test('an unknown tool: the model gets an error result naming the tools it has, and recovers', async () => {
    const shown = await expectRecovered(recoversFrom({ name: 'run_shell', arguments: { command: 'cat /etc/passwd' } }));
    expect(shown).toContain("unavailable tool 'run_shell'");
    expect(shown).toContain('edit_file');
  });

  test('edit_file without newString: the error result names the missing field, and the model recovers', async () => {
    const shown = await expectRecovered(recoversFrom({ name: 'edit_file', arguments: { path: 'quickstart.mdx', oldString: 'Install the CLI.' } }));
    expect(shown).toContain('Invalid input for tool edit_file');
    expect(shown).toContain('newString');
  });

  test('30 parallel calls in one step: ten edits of one page land in the order issued, reads and searches see the edits before them', async () => {
    const calls = Array.from({ length: 10 }, (_, index) => [
      { name: 'edit_file', arguments: { path: 'quickstart.mdx', oldString: 'END', newString: `${index + 1}. Step ${index + 1}\nEND` } },
      { name: 'read_file', arguments: { path: 'quickstart.mdx' } },
      { name: 'search', arguments: { query: `Step ${index + 1}` } },
    ]).flat();
    h = await createJobHarness(
      dialect,
      scriptedToolCalls([calls], 'Listed the ten steps.'),
      {},
      {
        'quickstart.mdx': '---\ntitle: Quickstart\n---\n\n# Quickstart\n\nSteps:\n\nEND\n',
      },
    );
    const { job, turn } = await runJob(h, 'List the ten steps');
    expect(job).toMatchObject({ status: 'completed', error: null });
    const steps = Array.from({ length: 10 }, (_, index) => `${index + 1}. Step ${index + 1}`).join('\n');
    expect(showFile(h.repository, `docwright/${job.id}`, 'quickstart.mdx')).toBe(`---\ntitle: Quickstart\n---\n\n# Quickstart\n\nSteps:\n\n${steps}\nEND`);
    expect(h.model.requests).toHaveLength(2);
    expect(turn.steps).toHaveLength(30);
    expect(turn.steps.filter((call: { ok: boolean }) => !call.ok)).toEqual([]);
    const results = h.model.requests[1]!.toolResults;
    expect(results).toHaveLength(30);
    // The read issued after edit k sees steps 1..k and not k+1; so does the search.
    for (let k = 1; k <= 10; k += 1) {
      const read = results[3 * (k - 1) + 1]!;
      expect(read).toContain(`${k}. Step ${k}`);
      if (k < 10) expect(read).not.toContain(`${k + 1}. Step ${k + 1}`);
      expect(results[3 * (k - 1) + 2]).toContain(`Step ${k}`);
    }
    if (dialect === 'sqlite') assertRequestsMatchSdkTypes(h.model.requests);
  });

  test('a loop of list_files: the step budget ends it with one wrap-up call, failed budget_exceeded, no branch', async () => {
    // agent-jobs.test.ts has the same at 5 steps with a pattern; here with no arguments at all.
    h = await createJobHarness(dialect, endlessToolLoop('list_files', {}), { DOCWRIGHT_JOB_MAX_STEPS: '3' });
    const { job, turn } = await runJob(h, 'Tidy the docs');
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('budget_exceeded');
    expect(job.prLink).toBeNull();
    expect(branches(h.repository)).toEqual(['main']);
    expect(h.model.requests).toHaveLength(3 + 1);
    expect(h.model.requests.map((request) => request.body['tool_choice'])).toEqual(['auto', 'auto', 'auto', 'none']);
    expect(turn).toMatchObject({ status: 'failed', filesChanged: [], commit: null });
  });

  test('a text-only answer: completed after one call, no branch, no pull request', async () => {
    h = await createJobHarness(dialect, replyWithText('The quickstart already covers installing the CLI.'));
    const { job, turn } = await runJob(h, 'Document the install command');
    expect(job).toMatchObject({ status: 'completed', error: null, prLink: null });
    expect(h.model.requests).toHaveLength(1);
    expect(branches(h.repository)).toEqual(['main']);
    expect(turn).toMatchObject({ finalMessage: 'The quickstart already covers installing the CLI.', filesChanged: [], commit: null });
  });

  test('an edit then its revert, and a page written then deleted: completed, nothing committed, no branch, no pull request', async () => {
    const script = scriptedToolCalls(
      [
        { name: 'edit_file', arguments: QUICKSTART_EDIT },
        { name: 'write_file', arguments: { path: 'install.mdx', content: '---\ntitle: Install\n---\n\n# Install\n' } },
        [
          { name: 'edit_file', arguments: { path: 'quickstart.mdx', oldString: QUICKSTART_EDIT.newString, newString: QUICKSTART_EDIT.oldString } },
          { name: 'delete_file', arguments: { path: 'install.mdx' } },
        ],
      ],
      'On second thought the page was fine as it was.',
    );
    h = await createJobHarness(dialect, script);
    const { job, turn } = await runJob(h, 'Document the install command');
    expect(job).toMatchObject({ status: 'completed', error: null, prLink: null });
    expect(h.model.requests).toHaveLength(4);
    expect(turn.steps.map((call: { toolName: string; ok: boolean }) => [call.toolName, call.ok])).toEqual([
      ['edit_file', true],
      ['write_file', true],
      ['edit_file', true],
      ['delete_file', true],
    ]);
    expect(turn).toMatchObject({ filesChanged: [], commit: null });
    expect(branches(h.repository)).toEqual(['main']);
    const pulls = await h.services.database.db.selectFrom('local_pull_requests').selectAll().execute();
    expect(pulls).toEqual([]);
  });
});
