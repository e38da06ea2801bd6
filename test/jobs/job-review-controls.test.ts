import { afterEach, describe, expect, test } from 'vitest';
import { ENABLE_AUTO_MERGE_MUTATION } from '../../src/git/forges/github-auto-merge.js';
import { git } from '../helpers/docs-repository.js';
import type { TestApp } from '../helpers/test-app.js';
import { startRunScenario, type RunScenario } from '../helpers/run-scenario.js';
import { BACKENDS } from '../helpers/test-database.js';
import { docsAgentScript } from './docs-agent-script.js';

async function pullRequestEvents(t: TestApp, jobId: string): Promise<Array<{ number: number; created: boolean; warnings?: string[] }>> {
  const rows = await t.services.database.db
    .selectFrom('job_events')
    .select('data')
    .where('job_id', '=', jobId)
    .where('type', '=', 'pull_request')
    .orderBy('id', 'asc')
    .execute();
  return rows.map((row) => JSON.parse(row.data) as { number: number; created: boolean; warnings?: string[] });
}

describe.each(BACKENDS)('auto-merge on GitHub [%s]', (dialect) => {
  let scenario: RunScenario | null = null;
  afterEach(async () => {
    await scenario?.close();
    scenario = null;
  });

  test('the GraphQL mutation enables auto-merge with the merge method; a follow-up neither re-enables it nor re-adds labels', async () => {
    scenario = await startRunScenario(dialect, 'github', docsAgentScript);
    const { t, project, github } = scenario;
    scenario.startRescuer();
    const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page', {}, { autoMerge: true, mergeMethod: 'squash', labels: ['docs'] });
    expect((await scenario.waitForSettled(job.id)).status).toBe('completed');
    const pull = github!.pulls[0]!;
    const graphql = github!.requests.filter((request) => request.path === '/graphql');
    expect(graphql).toHaveLength(1);
    expect(graphql[0]!.method).toBe('POST');
    expect(graphql[0]!.body).toEqual({ query: ENABLE_AUTO_MERGE_MUTATION, variables: { pullRequestId: pull.node_id, mergeMethod: 'SQUASH' } });
    expect(pull.auto_merge).toEqual({ enabled_by: { login: 'docs-maintainer' }, merge_method: 'squash', commit_title: null, commit_message: null });
    expect((await pullRequestEvents(t, job.id))[0]).toEqual({ number: 1, url: 'https://github.com/acme/docs/pull/1', created: true });

    // Someone removes the label; the follow-up updates the same pull request and leaves it so.
    pull.labels = [];
    await t.services.jobs.message(project, job.id, 'Mention the verbose flag');
    expect((await scenario.waitForSettled(job.id)).status).toBe('completed');
    expect(github!.pulls).toHaveLength(1);
    expect(github!.requests.filter((request) => request.path === '/graphql')).toHaveLength(1);
    expect(github!.requests.filter((request) => request.path.endsWith('/labels'))).toHaveLength(1);
    expect(pull.labels).toEqual([]);
    expect((await pullRequestEvents(t, job.id))[1]).toMatchObject({ number: 1, created: false });
  });

  test('a repository that does not allow auto-merge: the job completes and the pull_request event says what to change', async () => {
    scenario = await startRunScenario(dialect, 'github', docsAgentScript, { github: { autoMergeAllowed: false } });
    const { t, project, github } = scenario;
    scenario.startRescuer();
    const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page', {}, { autoMerge: true });
    const done = await scenario.waitForSettled(job.id);
    expect(done).toMatchObject({ status: 'completed', prLink: 'https://github.com/acme/docs/pull/1', error: null });
    const graphql = github!.requests.filter((request) => request.path === '/graphql');
    // No merge method asked for: the variable is left out and GitHub picks its default.
    expect(graphql.map((request) => request.body)).toEqual([{ query: ENABLE_AUTO_MERGE_MUTATION, variables: { pullRequestId: github!.pulls[0]!.node_id } }]);
    expect(github!.pulls[0]!.auto_merge).toBeNull();
    const [event] = await pullRequestEvents(t, job.id);
    const refusal =
      'GitHub refused enabling auto-merge on pull request #1 of acme/docs: Pull request Auto merge is not allowed for this repository. Allow auto-merge in the repository settings (General → Pull Requests).';
    expect(event?.warnings).toEqual([refusal]);
    // The turn keeps them too, for a caller that polls rather than reading events.
    const key = (await t.services.keys.create({ projectId: project.id })).key;
    const messages = await t.app.inject({ method: 'GET', url: `/v2/agent/${project.id}/job/${job.id}/messages`, headers: { authorization: `Bearer ${key}` } });
    expect(messages.json().messages.map((turn: { warnings: string[] }) => turn.warnings)).toEqual([[refusal]]);
  });

  test('nothing pending on the base branch ("clean status"): left open for review with a warning', async () => {
    scenario = await startRunScenario(dialect, 'github', docsAgentScript, { github: { requirementsPending: false } });
    const { t, project, github } = scenario;
    scenario.startRescuer();
    const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page', {}, { autoMerge: true });
    expect((await scenario.waitForSettled(job.id)).status).toBe('completed');
    expect(github!.pulls[0]).toMatchObject({ state: 'open', auto_merge: null });
    const [event] = await pullRequestEvents(t, job.id);
    expect(event?.warnings).toEqual([expect.stringContaining('Pull request is in clean status. Nothing the base branch requires is pending')]);
  });
});

const GITLAB_USERS = [
  { id: 11, username: 'alice' },
  { id: 12, username: 'bob' },
  { id: 13, username: 'outsider' },
];

describe.each(BACKENDS)('draft, reviewers, labels and auto-merge on GitLab [%s]', (dialect) => {
  let scenario: RunScenario | null = null;
  afterEach(async () => {
    await scenario?.close();
    scenario = null;
  });

  test('a draft merge request from another ref, with labels and reviewers by user id; an unknown username is a warning; a follow-up keeps it a draft', async () => {
    scenario = await startRunScenario(dialect, 'gitlab', docsAgentScript, { gitlab: { users: GITLAB_USERS, members: ['alice', 'bob'] } });
    const { t, project, gitlab, remote } = scenario;
    // release is one empty commit ahead of main, so a branch cut from main would be told apart.
    git(remote, 'update-ref', 'refs/heads/release', git(remote, 'commit-tree', 'main^{tree}', '-p', 'main', '-m', 'Release'));
    scenario.startRescuer();
    const { job } = await t.services.jobs.create(
      project,
      'Add a troubleshooting page',
      {},
      { ref: 'release', draft: true, reviewers: ['Alice', 'ghost', 'outsider'], labels: ['docs', 'agent'], branchName: 'troubleshooting' },
    );
    const done = await scenario.waitForSettled(job.id);
    expect(done).toMatchObject({ status: 'completed', source: { ref: 'release' }, prLink: 'https://gitlab.com/acme/docs/-/merge_requests/1' });
    const create = gitlab!.requests.find((request) => request.method === 'POST' && request.path.endsWith('/merge_requests'));
    expect(create?.body).toMatchObject({
      source_branch: 'docwright/troubleshooting',
      target_branch: 'release',
      labels: 'docs,agent',
      reviewer_ids: [11, 13],
    });
    // The branch starts from the ref asked for: its parent is the tip of release.
    expect(git(remote, 'rev-parse', 'docwright/troubleshooting^')).toBe(git(remote, 'rev-parse', 'release'));
    expect(String((create?.body as { title: string }).title)).toMatch(/^Draft: /);
    const lookups = gitlab!.requests.filter((request) => request.path === '/api/v4/users').map((request) => request.query.username);
    expect(lookups.sort()).toEqual(['Alice', 'ghost', 'outsider']);
    const mergeRequest = gitlab!.mergeRequests[0]!;
    expect(mergeRequest).toMatchObject({ draft: true, labels: ['docs', 'agent'], source_branch: 'docwright/troubleshooting' });
    expect((mergeRequest.reviewers as Array<{ username: string }>).map((user) => user.username)).toEqual(['alice']);
    const [event] = await pullRequestEvents(t, job.id);
    expect(event?.warnings).toEqual([
      'GitLab has no user named ghost: not requested as a reviewer.',
      expect.stringMatching(/^GitLab did not add outsider as a reviewer of !1: /),
    ]);

    expect((await t.services.jobRepository.turns(project.id, job.id))[0]?.warnings).toEqual(event?.warnings);

    // Someone takes a label off; the follow-up changes the title and keeps the draft prefix, and adds nothing.
    mergeRequest.labels = ['docs'];
    const before = gitlab!.requests.length;
    await t.services.jobs.message(project, job.id, 'Mention the verbose flag');
    expect((await scenario.waitForSettled(job.id)).status).toBe('completed');
    const later = gitlab!.requests.slice(before);
    expect(later.filter((request) => request.path === '/api/v4/users')).toEqual([]);
    expect(later.filter((request) => request.method === 'PUT').map((request) => Object.keys(request.body as object).sort())).toEqual([
      ['description', 'title'],
    ]);
    expect(gitlab!.mergeRequests).toHaveLength(1);
    expect(mergeRequest).toMatchObject({ draft: true, labels: ['docs'] });
    expect(mergeRequest.title).toMatch(/^Draft: /);
    expect((await t.services.jobRepository.turns(project.id, job.id)).map((turn) => turn.warnings.length)).toEqual([2, 0]);
  });

  test('autoMerge sets auto_merge and merge_when_pipeline_succeeds for the pushed commit, squashed', async () => {
    scenario = await startRunScenario(dialect, 'gitlab', docsAgentScript);
    const { t, project, gitlab } = scenario;
    scenario.startRescuer();
    const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page', {}, { autoMerge: true, mergeMethod: 'squash' });
    expect((await scenario.waitForSettled(job.id)).status).toBe('completed');
    const mergeRequest = gitlab!.mergeRequests[0]!;
    const merges = gitlab!.requests.filter((request) => request.path.endsWith('/merge_requests/1/merge'));
    expect(merges.map((request) => [request.method, request.body])).toEqual([
      ['PUT', { auto_merge: true, merge_when_pipeline_succeeds: true, sha: scenario.branchCommit(mergeRequest.source_branch), squash: true }],
    ]);
    expect(mergeRequest).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true, squash: true });
    expect((await pullRequestEvents(t, job.id))[0]?.warnings).toBeUndefined();
  });

  test('a merge request GitLab will not merge (conflicts): the job completes with a warning', async () => {
    scenario = await startRunScenario(dialect, 'gitlab', docsAgentScript);
    const { t, project, gitlab } = scenario;
    gitlab!.intercept((request) => (request.path.endsWith('/merge') ? { status: 406, body: { message: 'Branch cannot be merged' } } : undefined));
    scenario.startRescuer();
    const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page', {}, { autoMerge: true });
    expect((await scenario.waitForSettled(job.id)).status).toBe('completed');
    expect(gitlab!.mergeRequests[0]).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: false });
    const [event] = await pullRequestEvents(t, job.id);
    expect(event?.warnings).toEqual([expect.stringMatching(/HTTP 406 .*Branch cannot be merged.*Auto-merge is not set/)]);
  });
});

describe.each(BACKENDS)('review controls validated per forge through the API [%s]', (dialect) => {
  let scenario: RunScenario | null = null;
  afterEach(async () => {
    await scenario?.close();
    scenario = null;
  });

  test('GitLab: no team reviewers, commas in labels or rebase; nowhere draft with autoMerge or mergeMethod alone; nothing stored', async () => {
    scenario = await startRunScenario(dialect, 'gitlab', docsAgentScript);
    const { t } = scenario;
    const post = (body: object) => scenario!.postJob({ prompt: 'x', ...body });
    for (const [body, path] of [
      [{ reviewers: ['alice', 'acme/docs-team'] }, 'reviewers.1'],
      [{ labels: ['docs', 'needs,review'] }, 'labels.1'],
      [{ autoMerge: true, mergeMethod: 'rebase' }, 'mergeMethod'],
      [{ autoMerge: true, draft: true }, 'autoMerge'],
      [{ mergeMethod: 'squash' }, 'mergeMethod'],
      [{ autoMerge: true, mergeMethod: 'fast-forward' }, 'mergeMethod'],
    ] as const) {
      const response = await post(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json(), JSON.stringify(body)).toMatchObject({ code: 'validation_failed', errors: [{ path }] });
    }
    expect(await t.services.database.db.selectFrom('jobs').select('id').execute()).toEqual([]);
    const accepted = await post({ draft: true, reviewers: ['alice'], labels: ['docs'] });
    expect(accepted.statusCode).toBe(201);
    const stored = await t.services.database.db
      .selectFrom('jobs')
      .select('pull_request_options')
      .where('id', '=', accepted.json().id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(stored.pull_request_options ?? 'null')).toEqual({ draft: true, reviewers: ['alice'], labels: ['docs'] });
  });

  test('the local forge: autoMerge is auto_merge_unsupported, the other controls pull_request_options_unsupported', async () => {
    scenario = await startRunScenario(dialect, 'local', docsAgentScript);
    const { t, project } = scenario;
    await expect(t.services.jobs.create(project, 'x', {}, { autoMerge: true, labels: ['docs'] })).rejects.toMatchObject({
      code: 'auto_merge_unsupported',
      status: 400,
    });
    await expect(t.services.jobs.create(project, 'x', {}, { draft: true })).rejects.toMatchObject({ code: 'pull_request_options_unsupported', status: 400 });
  });
});
