import { afterEach, describe, expect, test } from 'vitest';
import { git } from '../helpers/docs-repository.js';
import { startRunScenario, type RunScenario } from '../helpers/run-scenario.js';
import { BACKENDS } from '../helpers/test-database.js';
import { docsAgentScript } from './docs-agent-script.js';

describe.each(BACKENDS)('branch and review controls on GitHub [%s]', (dialect) => {
  let scenario: RunScenario | null = null;
  afterEach(async () => {
    await scenario?.close();
    scenario = null;
  });

  test('ref, branchName, draft, reviewers and labels reach the pull request; a taken branch is a 409', async () => {
    scenario = await startRunScenario(dialect, 'github', docsAgentScript);
    const { t, project, github, remote } = scenario;
    git(remote, 'branch', 'release', 'main');
    scenario.startRescuer();
    const { job } = await t.services.jobs.create(
      project,
      'Add a troubleshooting page',
      {},
      { ref: 'release', branchName: 'fix/troubleshooting', draft: true, reviewers: ['alice', 'acme/docs-team'], labels: ['docs', 'agent'] },
    );
    expect(job.source.ref).toBe('release');
    const done = await scenario.waitForSettled(job.id);
    expect(done).toMatchObject({ status: 'completed', source: { ref: 'release' }, prLink: 'https://github.com/acme/docs/pull/1' });
    const pull = github!.pulls[0]!;
    expect(pull).toMatchObject({ draft: true, head: { ref: 'docwright/fix/troubleshooting' }, base: { ref: 'release' } });
    expect(pull.requested_reviewers).toEqual([{ login: 'alice', type: 'User' }]);
    expect(pull.requested_teams).toEqual([{ slug: 'docs-team', name: 'docs-team' }]);
    expect(pull.labels).toEqual([{ name: 'docs' }, { name: 'agent' }]);
    expect(scenario.branches()).toEqual(['docwright/fix/troubleshooting', 'main', 'release']);

    await expect(t.services.jobs.create(project, 'Another', {}, { branchName: 'fix/troubleshooting' })).rejects.toMatchObject({
      code: 'branch_taken',
      status: 409,
    });
  });

  test('a reviewer GitHub refuses leaves the pull request open and shows a warning', async () => {
    scenario = await startRunScenario(dialect, 'github', docsAgentScript);
    const { t, project, github } = scenario;
    github!.intercept((request) =>
      request.path.endsWith('/requested_reviewers')
        ? { status: 422, body: { message: 'Reviews may only be requested from collaborators.', documentation_url: 'https://docs.github.com/rest' } }
        : undefined,
    );
    scenario.startRescuer();
    const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page', {}, { reviewers: ['stranger'], labels: ['docs'] });
    const done = await scenario.waitForSettled(job.id);
    expect(done.status).toBe('completed');
    expect(github!.pulls[0]!.labels).toEqual([{ name: 'docs' }]);
    const event = await t.services.database.db
      .selectFrom('job_events')
      .select('data')
      .where('job_id', '=', job.id)
      .where('type', '=', 'pull_request')
      .executeTakeFirstOrThrow();
    expect((JSON.parse(event.data) as { warnings: string[] }).warnings).toEqual([expect.stringContaining('collaborators')]);
  });
});

describe.each(BACKENDS)('branch controls through the API [%s]', (dialect) => {
  let scenario: RunScenario | null = null;
  afterEach(async () => {
    await scenario?.close();
    scenario = null;
  });

  test('create validates the controls; the local forge refuses pull request options', async () => {
    scenario = await startRunScenario(dialect, 'local', docsAgentScript);
    const { t } = scenario;
    const post = (body: object) => scenario!.postJob(body);
    for (const [body, path] of [
      [{ prompt: 'x', ref: '-main' }, 'ref'],
      [{ prompt: 'x', branchName: 'docwright/x' }, 'branchName'],
      [{ prompt: 'x', branchName: 'a..b' }, 'branchName'],
      [{ prompt: 'x', reviewers: ['bad name'] }, 'reviewers.0'],
      [{ prompt: 'x', labels: Array.from({ length: 21 }, (_, index) => `l${index}`) }, 'labels'],
      [{ prompt: 'x', draft: 'yes' }, 'draft'],
    ] as const) {
      const response = await post(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    }
    const local = await post({ prompt: 'x', labels: ['docs'] });
    expect(local.statusCode).toBe(400);
    expect(local.json().code).toBe('pull_request_options_unsupported');
    const named = await post({ prompt: 'x', branchName: 'my-change' });
    expect(named.statusCode).toBe(201);
    expect((await t.services.database.db.selectFrom('jobs').select('branch').where('id', '=', named.json().id).executeTakeFirstOrThrow()).branch).toBe(
      'docwright/my-change',
    );
    const taken = await post({ prompt: 'x', branchName: 'my-change' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe('branch_taken');
  });
});
