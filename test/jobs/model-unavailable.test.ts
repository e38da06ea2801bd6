import { afterEach, describe, expect, test } from 'vitest';
import { failWith, startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { BACKENDS } from '../helpers/test-database.js';

/**
 * A retired or unknown model: the provider's "not found" answer, through the real AI SDK
 * providers on the wire, fails the job at once with `model_unavailable` (no retry of the
 * call, no retry of the job) and a message that says which setting to change.
 */
describe.each(BACKENDS)('a model the provider does not serve [%s]', (dialect) => {
  let h: JobHarness | undefined;
  let provider: FakeModelServer | undefined;
  afterEach(async () => {
    await h?.close();
    await provider?.close();
  });

  const cases = [
    {
      name: 'Anthropic 404 not_found_error',
      model: 'anthropic:claude-sonnet-4-5',
      reply: failWith(404, { body: { type: 'error', error: { type: 'not_found_error', message: 'model: claude-sonnet-4-5' } } }),
      environment: (url: string) => ({ ANTHROPIC_API_KEY: 'sk-ant-test-key-123456', DOCWRIGHT_ANTHROPIC_BASE_URL: url }),
      named: '"claude-sonnet-4-5"',
    },
    {
      name: 'OpenAI 404 model_not_found',
      model: 'openai:gpt-4.5-preview',
      reply: failWith(404, {
        body: {
          error: {
            message: 'The model `gpt-4.5-preview` does not exist or you do not have access to it.',
            type: 'invalid_request_error',
            param: null,
            code: 'model_not_found',
          },
        },
      }),
      environment: (url: string) => ({ OPENAI_API_KEY: 'sk-test-openai-key-123456', DOCWRIGHT_OPENAI_BASE_URL: url }),
      named: '"gpt-4.5-preview"',
    },
  ];

  test.each(cases)('$name: the job fails with model_unavailable after one provider call', async ({ model, reply, environment, named }) => {
    provider = await startFakeModelServer({ script: reply });
    h = await createJobHarness(dialect, () => ({ text: 'never asked' }), {
      DOCWRIGHT_MODEL: model,
      DOCWRIGHT_MODEL_RETRIES: '2',
      DOCWRIGHT_JOB_MAX_ATTEMPTS: '3',
      ...environment(provider.url),
    });
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Add a troubleshooting page' });
    const done = await h.waitForSettled(created.body.id as string);

    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('model_unavailable');
    expect(done.error?.message).toContain(named);
    expect(done.error?.message).toContain('Set DOCWRIGHT_MODEL');
    expect(done.error?.message).toContain('for example anthropic:claude-sonnet-5-5');
    expect(done.prLink).toBeNull();
    expect(provider.requests).toHaveLength(1);
    expect(h.model.requests).toHaveLength(0);
  });
});
