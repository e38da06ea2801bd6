import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { showFile } from '../helpers/docs-repository.js';
import { docsAgentScript, FIX_REQUEST_MARKER } from './docs-agent-script.js';

describe.each(BACKENDS)('Docwright checks the docs before the pull request [%s]', (dialect) => {
  let h: JobHarness;
  afterEach(async () => h?.close());

  test('a model that broke a link and never ran check_docs is shown the problem and fixes it before the pull request', async () => {
    h = await createJobHarness(dialect, docsAgentScript);
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Add a broken link page (fixable)' });
    const done = await h.waitForSettled(created.body.id, 60_000);
    expect(done).toMatchObject({ status: 'completed', error: null, unresolvedProblems: 0 });
    // Write, answer, Docwright's fix request → edit, answer.
    expect(h.model.requests).toHaveLength(4);
    const fixRequest = h.model.requests[2]!;
    expect(fixRequest.lastUserText).toContain(FIX_REQUEST_MARKER);
    expect(fixRequest.lastUserText).toMatch(/- broken\.mdx:3 \(broken-link\): .*no-such-page/);
    expect(showFile(h.repository, `docwright/${done.id}`, 'broken.mdx')).toContain('](/quickstart)');
    const messages = await h.request('GET', `/v2/agent/${h.projectId}/job/${done.id}/messages`);
    expect(messages.body.messages[0].problems.filter((problem: { new: boolean }) => problem.new)).toEqual([]);
  });

  test('problems the model does not fix in its rounds are listed first in the pull request and counted on the job', async () => {
    h = await createJobHarness(dialect, docsAgentScript);
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Add a broken link page' });
    const done = await h.waitForSettled(created.body.id, 60_000);
    expect(done).toMatchObject({ status: 'completed', error: null, unresolvedProblems: 1 });
    expect(done.prLink).not.toBeNull();
    // Write, answer, then two fix rounds the model ignores: bounded, never a loop.
    expect(h.model.requests).toHaveLength(4);
    expect(h.model.requests.filter((request) => request.lastUserText.includes(FIX_REQUEST_MARKER))).toHaveLength(2);
    const [pull] = await h.services.database.db.selectFrom('local_pull_requests').selectAll().execute();
    const body = pull!.body;
    expect(body.indexOf('**1 new problem**')).toBeGreaterThan(-1);
    expect(body.indexOf('**1 new problem**')).toBeLessThan(body.indexOf('### Instruction'));
    expect(body).toContain('`broken.mdx:3` (broken-link)');
  });
});
