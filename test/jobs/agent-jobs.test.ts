import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { branches, branchLog, git, showFile } from '../helpers/docs-repository.js';
import { docsAgentScript } from './docs-agent-script.js';
import { TEST_SECRET } from '../helpers/test-app.js';

describe.each(BACKENDS)('agent jobs end to end [%s]', (dialect) => {
  let h: JobHarness;
  afterEach(async () => h?.close());

  test('an edit opens a pull request; a follow-up updates the same one', async () => {
    h = await createJobHarness(dialect, docsAgentScript);
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Add a troubleshooting page' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([
      'archivedAt',
      'createdAt',
      'error',
      'id',
      'model',
      'prLink',
      'prStatus',
      'source',
      'status',
      'unresolvedProblems',
      'updatedAt',
      'usage',
    ]);
    expect(created.body).toMatchObject({
      status: 'active',
      prLink: null,
      prStatus: null,
      archivedAt: null,
      model: 'openai-compatible:fake-model',
      source: { repository: h.repository, ref: 'main' },
    });
    expect(created.headers['ratelimit-policy']).toBe('"agent";q=100;w=3600');
    expect(created.headers['ratelimit']).toBe('"agent";r=99;t=3600');

    const jobId = created.body.id as string;
    const done = await h.waitForSettled(jobId);
    expect(done.status).toBe('completed');
    expect(done.prLink).toMatch(new RegExp(`^http://docs\\.test/projects/${h.projectId}/pulls/1\\?token=[A-Za-z0-9_-]{32}$`));
    expect(done.prStatus).toBe('open');
    const branch = `docwright/${jobId}`;
    expect(branches(h.repository)).toEqual(['main', branch].sort());
    expect(showFile(h.repository, branch, 'troubleshooting.mdx')).toContain('# Troubleshooting');
    expect(showFile(h.repository, branch, 'docs.json')).toContain('"troubleshooting"');
    expect(git(h.repository, 'log', '-1', '--format=%an <%ae>', branch)).toBe('Docwright Agent <agent@docwright.invalid>');
    expect(git(h.repository, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');

    const page = await h.app.inject({ method: 'GET', url: `/v1${new URL(done.prLink!).pathname}${new URL(done.prLink!).search}` });
    expect(page.statusCode).toBe(200);
    expect(page.json()).toMatchObject({ title: 'Docs: Add a troubleshooting page', status: 'open', jobId });
    expect(page.json().diff).toContain('+# Troubleshooting');

    const followUp = await h.request('POST', `/v2/agent/${h.projectId}/job/${jobId}/message`, { prompt: 'Mention the verbose flag' });
    expect(followUp.status).toBe(200);
    expect(followUp.body.status).toBe('active');
    expect(followUp.body.prLink).toBe(done.prLink);
    const again = await h.waitForSettled(jobId);
    expect(again.status).toBe('completed');
    expect(again.prLink).toBe(done.prLink);
    expect(branchLog(h.repository, branch)).toHaveLength(3);
    expect(showFile(h.repository, branch, 'troubleshooting.mdx')).toContain('--verbose');
    const pulls = await h.services.database.db.selectFrom('local_pull_requests').selectAll().execute();
    expect(pulls).toHaveLength(1);
    expect(pulls[0]!.body).toContain('Follow-up 1');
    expect(pulls[0]!.body).toContain('This change introduced no documentation problems.');

    const conversation = await h.request('GET', `/v2/agent/${h.projectId}/job/${jobId}/messages`);
    expect(conversation.body.messages.map((turn: { prompt: string; status: string }) => [turn.prompt, turn.status])).toEqual([
      ['Add a troubleshooting page', 'completed'],
      ['Mention the verbose flag', 'completed'],
    ]);
    const first = conversation.body.messages[0];
    expect(first.filesChanged).toEqual(['docs.json', 'troubleshooting.mdx']);
    expect(first.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(first.finalMessage).toBe('Added troubleshooting.mdx and linked it in the navigation.');
    expect(first.steps.map((step: { toolName: string }) => step.toolName)).toEqual(['read_file', 'write_file', 'edit_file', 'check_docs']);

    // The model saw tool results and prompts, never a credential of this process.
    const everything = JSON.stringify(h.model.requests.map((request) => request.body));
    expect(everything).toContain('troubleshooting');
    expect(everything).not.toContain('sk-test-provider-secret-123456');
    expect(everything).not.toContain(TEST_SECRET);
    expect(everything).not.toContain(h.key);
  });

  test('a run that changes nothing completes with prLink null and pushes no branch', async () => {
    h = await createJobHarness(dialect, docsAgentScript);
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Is the quickstart fine?' });
    const done = await h.waitForSettled(created.body.id);
    expect(done).toMatchObject({ status: 'completed', prLink: null, error: null });
    expect(branches(h.repository)).toEqual(['main']);
  });

  test('a provider answering 500 is retried, then the job fails with its reason', async () => {
    h = await createJobHarness(dialect, docsAgentScript, { DOCWRIGHT_JOB_MAX_ATTEMPTS: '3' });
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'provider down please' });
    const done = await h.waitForSettled(created.body.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('model_error');
    expect(h.model.requests).toHaveLength(3);
    const events = await h.services.database.db.selectFrom('job_events').select('type').where('job_id', '=', created.body.id).orderBy('id').execute();
    expect(events.map((event) => event.type).filter((type) => type === 'turn.retrying')).toHaveLength(2);
  });

  test('an endless tool loop that changed nothing gets its wrap-up step, fails with budget_exceeded and opens no pull request', async () => {
    h = await createJobHarness(dialect, docsAgentScript, { DOCWRIGHT_JOB_MAX_STEPS: '5' });
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'loop until done' });
    const done = await h.waitForSettled(created.body.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('budget_exceeded');
    expect(done.prLink).toBeNull();
    // Five steps, then the wrap-up step without tools.
    expect(h.model.requests).toHaveLength(6);
    expect(h.model.requests[5]?.body['tool_choice']).toBe('none');
    expect(branches(h.repository)).toEqual(['main']);
  });

  test('a run that edits at step 1 and then loops keeps its edit: committed, pushed, in a pull request, and the job says budget_exceeded', async () => {
    h = await createJobHarness(dialect, docsAgentScript, { DOCWRIGHT_JOB_MAX_STEPS: '5' });
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'edit then loop' });
    const done = await h.waitForSettled(created.body.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('budget_exceeded');
    expect(done.error?.message).toContain('step budget (5 steps)');
    expect(done.prLink).not.toBeNull();
    expect(branches(h.repository)).toEqual([`docwright/${done.id}`, 'main'].sort());
    expect(showFile(h.repository, `docwright/${done.id}`, 'troubleshooting.mdx')).toContain('# Troubleshooting');
    const messages = await h.request('GET', `/v2/agent/${h.projectId}/job/${done.id}/messages`);
    const turn = messages.body.messages[0];
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'budget_exceeded' }, filesChanged: ['troubleshooting.mdx'] });
    expect(turn.commit).toMatch(/^[0-9a-f]{40}$/);
    // The wrap-up's summary is the turn's final message.
    expect(turn.finalMessage).toBe('Stopped at the budget: added troubleshooting.mdx.');
  });

  test('a clone that fails while the model is already running fails the job with the git error and leaves no workspace', async () => {
    h = await createJobHarness(dialect, docsAgentScript);
    await h.services.database.db.updateTable('projects').set({ ref: 'no-such-branch' }).where('id', '=', h.projectId).execute();
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Add a troubleshooting page' });
    const done = await h.waitForSettled(created.body.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('git_ref_not_found');
    expect(done.error?.message).toContain('no-such-branch');
    expect(done.prLink).toBeNull();
    expect(branches(h.repository)).toEqual(['main']);
    const workspaces = join(h.services.config.dataDir, 'workspaces');
    expect(existsSync(workspaces) ? readdirSync(workspaces) : []).toEqual([]);
  });

  test('an archived job rejects messages with 409', async () => {
    h = await createJobHarness(dialect, docsAgentScript);
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Is the quickstart fine?' });
    await h.waitForSettled(created.body.id);
    const archived = await h.request('POST', `/v2/agent/${h.projectId}/job/${created.body.id}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe('archived');
    expect(archived.body.archivedAt).not.toBeNull();
    const message = await h.request('POST', `/v2/agent/${h.projectId}/job/${created.body.id}/message`, { prompt: 'one more thing' });
    expect(message.status).toBe(409);
    expect(message.body.code).toBe('job_archived');
    expect(message.headers['ratelimit']).toBe('"agent";r=99;t=3600');
  });

  test('a job whose model has no credentials fails with model_not_configured', async () => {
    h = await createJobHarness(dialect, docsAgentScript, { DOCWRIGHT_MODEL: 'anthropic:claude-sonnet-4-5' });
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Add a troubleshooting page' });
    const done = await h.waitForSettled(created.body.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('model_not_configured');
    expect(done.error?.message).toContain('ANTHROPIC_API_KEY');
    expect(h.model.requests).toHaveLength(0);
  });
});
