import { expect } from 'vitest';
import type { Job } from '../../src/jobs/job.js';
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import type { Dialect } from '../../src/db/database.js';

/** What the misbehaving-models tests read back after a job: the job, and its first turn as the API lists it. */
export interface JobOutcome {
  job: Job;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see eslint.config.js on tests reading bodies as any
  turn: any;
}

export async function runJob(h: JobHarness, prompt: string): Promise<JobOutcome> {
  const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt });
  expect(created.status).toBe(201);
  const job = await h.waitForSettled(created.body.id as string, 60_000);
  const messages = await h.request('GET', `/v2/agent/${h.projectId}/job/${job.id}/messages`);
  return { job, turn: messages.body.messages[0] };
}

/** The script, with the time each call arrived, to measure the wait before a retried call. */
export function timed(script: FakeModelScript): { script: FakeModelScript; arrivals: number[] } {
  const arrivals: number[] = [];
  return {
    arrivals,
    script: (request, callIndex) => {
      arrivals[callIndex] = Date.now();
      return script(request, callIndex);
    },
  };
}

/**
 * A job harness whose model is Anthropic's, served by its own fake on the Messages API. The
 * harness's openai-compatible fake stays idle: a request reaching it is a test failure.
 */
export async function createAnthropicJobHarness(
  dialect: Dialect,
  script: FakeModelScript,
  environment: Record<string, string> = {},
): Promise<{ h: JobHarness; provider: FakeModelServer }> {
  const provider = await startFakeModelServer({ script });
  const h = await createJobHarness(dialect, () => ({ text: 'the openai-compatible fake must not be asked' }), {
    DOCWRIGHT_MODEL: 'anthropic:claude-sonnet-5-5',
    ANTHROPIC_API_KEY: 'sk-ant-test-key-123456',
    DOCWRIGHT_ANTHROPIC_BASE_URL: provider.url,
    ...environment,
  });
  return { h, provider };
}
