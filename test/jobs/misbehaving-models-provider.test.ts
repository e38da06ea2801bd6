import { afterEach, describe, expect, test } from 'vitest';
import { overloaded, rateLimited, scriptedToolCalls, type FakeModelScript, type FakeModelServer, type FakeReply } from '../fakes/fake-model-server.js';
import { branches, showFile } from '../helpers/docs-repository.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { assertRequestsMatchSdkTypes } from '../helpers/provider-request-types.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createAnthropicJobHarness, runJob, timed } from './misbehaving-model-kit.js';

/**
 * Providers that fail mid-run, end to end through the fakes with the real AI SDK, worker and
 * database: each failed model call is retried alone (model-call-retry.ts), so the job
 * completes with exactly one extra provider call and no earlier step redone. A wait longer
 * than a model call may take, which falls to the job's retry, is
 * provider-retry-after-job.test.ts; the retry arithmetic itself is model-call-retry's own tests.
 * Tool misuse is misbehaving-models-tools.test.ts.
 */

const EDITED = 'Install the CLI with `npm i -g docs-cli`.';
const FINAL = 'Documented the install command in the quickstart, with the npm package name to install.';

/** Edit, then answer: two calls when nothing fails. */
const editThenAnswer = scriptedToolCalls(
  [{ name: 'edit_file', arguments: { path: 'quickstart.mdx', oldString: 'Install the CLI.', newString: EDITED } }],
  FINAL,
);

/** `editThenAnswer`, with call `failing` (0-based) answered by `reply` instead. */
function failingOnce(failing: number, reply: (request: Parameters<FakeModelScript>[0]) => FakeReply): FakeModelScript {
  return (request, callIndex) => (callIndex === failing ? reply(request) : editThenAnswer(request, callIndex));
}

describe.each(BACKENDS)('providers that fail mid-run [%s]', (dialect) => {
  let h: JobHarness | undefined;
  let provider: FakeModelServer | undefined;
  afterEach(async () => {
    await h?.close();
    await provider?.close();
    h = undefined;
    provider = undefined;
  });

  async function expectCompletedWithEdit(harness: JobHarness): Promise<string> {
    const { job, turn } = await runJob(harness, 'Document the install command');
    expect(job).toMatchObject({ status: 'completed', error: null });
    expect(job.prLink).not.toBeNull();
    expect(showFile(harness.repository, `docwright/${job.id}`, 'quickstart.mdx')).toContain(EDITED);
    expect(turn.finalMessage).toBe(FINAL);
    // The model call was retried, not the turn.
    const retries = await harness.services.database.db
      .selectFrom('job_events')
      .select('type')
      .where('job_id', '=', job.id)
      .where('type', '=', 'turn.retrying')
      .execute();
    expect(retries).toEqual([]);
    return job.id;
  }

  test('429 with retry-after: 1: that step is sent again after at least 1 s, and the job completes with one extra call', async () => {
    const clock = timed(failingOnce(1, () => rateLimited(1)));
    h = await createJobHarness(dialect, clock.script, { DOCWRIGHT_MODEL_RETRIES: '2' });
    await expectCompletedWithEdit(h);
    expect(h.model.requests).toHaveLength(2 + 1);
    expect(clock.arrivals[2]! - clock.arrivals[1]!).toBeGreaterThanOrEqual(1_000);
    expect(h.model.requests[2]!.rawBody).toBe(h.model.requests[1]!.rawBody);
  });

  test('Anthropic 429 with only anthropic-ratelimit-requests-reset 1 s ahead: waited for, then the job completes', async () => {
    const clock = timed(failingOnce(1, () => rateLimited(1, { via: ['anthropic-ratelimit-requests-reset'] })));
    ({ h, provider } = await createAnthropicJobHarness(dialect, clock.script, { DOCWRIGHT_MODEL_RETRIES: '2' }));
    await expectCompletedWithEdit(h);
    expect(provider.requests).toHaveLength(2 + 1);
    expect(h.model.requests).toHaveLength(0);
    // The reset is an RFC 3339 time counted from when the fake answered: a little under 1 s remains on arrival.
    expect(clock.arrivals[2]! - clock.arrivals[1]!).toBeGreaterThanOrEqual(900);
  });

  test('Anthropic 529 overloaded once: retried, the job completes, and every request matches the SDK types', async () => {
    // Without a retry-after the 529 backoff is 2.5–5 s (model-call-retry.ts); the header keeps the test short.
    ({ h, provider } = await createAnthropicJobHarness(
      dialect,
      failingOnce(1, () => overloaded({ headers: { 'retry-after': '1' } })),
      {
        DOCWRIGHT_MODEL_RETRIES: '2',
      },
    ));
    await expectCompletedWithEdit(h);
    expect(provider.requests).toHaveLength(2 + 1);
    expect(provider.requests.every((request) => request.protocol === 'anthropic-messages' && request.stream)).toBe(true);
    expect(provider.requests[2]!.rawBody).toBe(provider.requests[1]!.rawBody);
    if (dialect === 'sqlite') assertRequestsMatchSdkTypes(provider.requests);
  });

  test('a stream cut mid-answer once: retried, and the final message is the whole answer, not the part received', async () => {
    h = await createJobHarness(
      dialect,
      failingOnce(1, (request) => ({ ...(editThenAnswer(request, 1) as FakeReply), cutAfterEvents: 2 })),
      {
        DOCWRIGHT_MODEL_RETRIES: '2',
      },
    );
    await expectCompletedWithEdit(h);
    expect(h.model.requests).toHaveLength(2 + 1);
  });

  test('a stream cut every time after the first step: failed model_error saying the stream ended early, nothing pushed', async () => {
    const script: FakeModelScript = (request, callIndex) => ({
      ...(editThenAnswer(request, callIndex) as FakeReply),
      ...(callIndex > 0 ? { cutAfterEvents: 1 } : {}),
    });
    h = await createJobHarness(dialect, script, { DOCWRIGHT_MODEL_RETRIES: '1', DOCWRIGHT_JOB_MAX_ATTEMPTS: '1' });
    const { job } = await runJob(h, 'Document the install command');
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('model_error');
    expect(job.error?.message).toContain('stream ended before the answer was complete');
    expect(job.prLink).toBeNull();
    expect(branches(h.repository)).toEqual(['main']);
    // The edit, then the answer tried twice (one retry), one job attempt.
    expect(h.model.requests).toHaveLength(1 + 2);
  });

  test('a 500 on the fifth request: that step is retried, the four before it are not redone, the pull request opens', async () => {
    const steps = scriptedToolCalls(
      [
        { name: 'read_file', arguments: { path: 'docs.json' } },
        { name: 'read_file', arguments: { path: 'quickstart.mdx' } },
        { name: 'search', arguments: { query: 'CLI' } },
        { name: 'edit_file', arguments: { path: 'quickstart.mdx', oldString: 'Install the CLI.', newString: EDITED } },
        { name: 'check_docs', arguments: {} },
      ],
      FINAL,
    );
    h = await createJobHarness(dialect, (request, callIndex) => (callIndex === 4 ? { status: 500 } : steps(request, callIndex)), {
      DOCWRIGHT_MODEL_RETRIES: '2',
    });
    await expectCompletedWithEdit(h);
    // Six calls without the failure, exactly one more with it.
    expect(h.model.requests).toHaveLength(6 + 1);
    expect(h.model.requests.map((request) => request.toolRounds)).toEqual([0, 1, 2, 3, 4, 4, 5]);
    expect(h.model.requests[5]!.rawBody).toBe(h.model.requests[4]!.rawBody);
  });
});
