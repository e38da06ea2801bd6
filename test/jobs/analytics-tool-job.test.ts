import { afterEach, describe, expect, test } from 'vitest';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import type { FakeModelRequest, FakeModelScript } from '../fakes/fake-model-server.js';

const CHATGPT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

interface Hit {
  path: string;
  userAgent: string;
  visitorId: string;
  status?: number;
}

const hits = (count: number, path: string, userAgent: string, prefix: string, status?: number): Hit[] =>
  Array.from({ length: count }, (_, index) => ({ path, userAgent, visitorId: `${prefix}-${index}`, ...(status === undefined ? {} : { status }) }));

/** The project's traffic: what the tool must report for it, and nothing of the other project's. */
const OWN_HITS: Hit[] = [
  ...hits(3, '/guides/ai-favourite', CHATGPT, 'ai'),
  ...hits(2, '/guides/human-only', BROWSER, 'human'),
  ...hits(1, '/guides/both', CHATGPT, 'ai'),
  ...hits(1, '/guides/both', BROWSER, 'human'),
  ...hits(2, '/guides/missing', CHATGPT, 'ai-404', 404),
];
const OTHER_HITS: Hit[] = hits(5, '/other-project-secret', CHATGPT, 'other');

/** The JSON results of the analytics tool in the model's last request, by report. */
function analyticsResults(request: FakeModelRequest): Map<string, { rows: Array<Record<string, unknown>>; hasMore: boolean }> {
  const results = new Map<string, { rows: Array<Record<string, unknown>>; hasMore: boolean }>();
  for (const text of request.toolResults) {
    if (!text.includes('"report"')) continue;
    const parsed = JSON.parse(text) as { report: string; rows: Array<Record<string, unknown>>; hasMore: boolean };
    results.set(parsed.report, parsed);
  }
  return results;
}

describe.each(ANALYTICS_BACKENDS)('the agent reads its own project analytics (%s)', (backend) => {
  let h: JobHarness;
  afterEach(async () => h?.close());

  test('query_analytics answers from the job project only, with the real counts of every report', async () => {
    const script: FakeModelScript = (request) => {
      if (request.toolRounds === 0) {
        // The model tries to name the other project: the tool has no such field, so it is ignored.
        return { toolCalls: [{ name: 'query_analytics', arguments: { report: 'top_pages_ai', limit: 5, projectId: otherProjectId } }] };
      }
      if (request.toolRounds === 1) {
        return {
          toolCalls: [
            { name: 'query_analytics', arguments: { report: 'agent_only_pages' } },
            { name: 'query_analytics', arguments: { report: 'agent_errors', days: 7 } },
            { name: 'query_analytics', arguments: { report: 'top_pages_human', limit: 1 } },
          ],
        };
      }
      return { text: 'Read the analytics.' };
    };
    let otherProjectId = '';
    h = await createJobHarness(backend, script);
    const other = await h.services.projects.create({ name: 'Other Docs', repository: h.repository, ref: 'main', forge: 'local', settings: {} });
    otherProjectId = other.id;
    const otherKey = (await h.services.keys.create({ projectId: other.id })).key;

    const own = await h.request('POST', `/v1/analytics/${h.projectId}/events`, { events: OWN_HITS });
    expect(own.body.accepted).toBe(OWN_HITS.length);
    const foreign = await h.app.inject({
      method: 'POST',
      url: `/v1/analytics/${other.id}/events`,
      headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ events: OTHER_HITS }),
    });
    expect(foreign.json().accepted).toBe(OTHER_HITS.length);

    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Which pages do AI assistants read most?' });
    expect(created.status).toBe(201);
    const job = await h.waitForSettled(created.body.id);
    expect(job.status).toBe('completed');

    const first = h.model.requests[0];
    expect(first?.toolNames).toContain('query_analytics');
    const last = h.model.requests.at(-1);
    if (last === undefined) throw new Error('the model was never called');
    const results = analyticsResults(last);

    expect(results.get('top_pages_ai')?.rows).toEqual([
      { path: '/guides/ai-favourite', humanReaders: 0, aiReaders: 3, agentSkew: 3 },
      { path: '/guides/missing', humanReaders: 0, aiReaders: 2, agentSkew: 2 },
      { path: '/guides/both', humanReaders: 1, aiReaders: 1, agentSkew: 0.5 },
      { path: '/guides/human-only', humanReaders: 2, aiReaders: 0, agentSkew: 0 },
    ]);
    expect(results.get('agent_only_pages')?.rows.map((row) => row.path)).toEqual(['/guides/ai-favourite', '/guides/missing']);
    expect(results.get('agent_errors')?.rows).toEqual([{ path: '/guides/missing', status: 404, hits: 2, visitors: 2, agents: ['ChatGPT'] }]);
    const human = results.get('top_pages_human');
    expect(human?.rows).toEqual([{ path: '/guides/human-only', humanReaders: 2, aiReaders: 0, agentSkew: 0 }]);
    expect(human?.hasMore).toBe(true);

    // Nothing of the other project reached the model, in any request.
    for (const request of h.model.requests) expect(request.rawBody).not.toContain('other-project-secret');
  });

  test('a range beyond the limits is refused by the tool schema and the run goes on', async () => {
    h = await createJobHarness(backend, (request) =>
      request.toolRounds === 0
        ? { toolCalls: [{ name: 'query_analytics', arguments: { report: 'top_pages_ai', days: 5000, limit: 1000 } }] }
        : { text: 'done' },
    );
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Look at the analytics.' });
    const job = await h.waitForSettled(created.body.id);
    expect(job.status).toBe('completed');
    const results = h.model.requests.at(-1)?.toolResults ?? [];
    expect(results.join('\n')).toMatch(/days|limit/);
    expect(results.join('\n')).not.toContain('"rows"');
  });
});
