import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { jobsCommand } from '../../src/cli/commands/jobs-command.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';

const JOB_KEYS = ['archivedAt', 'createdAt', 'error', 'id', 'model', 'prLink', 'prStatus', 'source', 'status', 'unresolvedProblems', 'updatedAt', 'usage'];
const SUBCOMMANDS = ['create', 'message', 'get', 'list', 'archive', 'cancel', 'wait', 'messages'];

/** Asserts that `needles` occur in `haystack` in this order, and returns nothing. */
function expectInOrder(haystack: string, needles: string[]): void {
  let from = 0;
  for (const needle of needles) {
    const at = haystack.indexOf(needle, from);
    expect(at, `"${needle}" after offset ${from} in:\n${haystack}`).toBeGreaterThanOrEqual(0);
    from = at + needle.length;
  }
}

describe('docwright jobs against a running server', () => {
  let h: JobHarness;
  let environment: Record<string, string>;
  let api: (path: string) => Promise<unknown>;

  beforeAll(async () => {
    h = await createJobHarness('sqlite', docsAgentScript, { DOCWRIGHT_JOB_MAX_ATTEMPTS: '2' });
    const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
    environment = { DOCWRIGHT_URL: url, DOCWRIGHT_API_KEY: h.key };
    api = async (path) => (await h.request('GET', path)).body as unknown;
  });
  afterAll(async () => h?.close());

  test('create --wait shows progress and ends with the PR link; message --wait shows only the follow-up', async () => {
    const prLinkPrefix = `http://docs.test/projects/${h.projectId}/pulls/1?token=`;
    const created = await runCli(['jobs', 'create', '--project', h.projectId, '--prompt', 'Add a troubleshooting page', '--wait'], environment);
    expect(created.code, created.stderr).toBe(0);
    const lastLine = created.stdout.trimEnd().split('\n').at(-1) ?? '';
    // The local forge's link carries the pull request's share token.
    expect(lastLine.startsWith(`Pull request: ${prLinkPrefix}`)).toBe(true);
    expect(lastLine).toMatch(/\?token=[A-Za-z0-9_-]{32}$/);
    const prLink = lastLine.slice('Pull request: '.length);
    const jobId = /^Created job (\S+); waiting/m.exec(created.stderr)?.[1];
    expect(jobId).toBeDefined();
    expectInOrder(created.stderr, [
      '▸ turn 1 started: Add a troubleshooting page\n',
      '  ✓ read_file docs.json\n',
      '  ✓ write_file troubleshooting.mdx\n',
      '  ✓ edit_file docs.json\n',
      '  ✓ check_docs\n',
      `⇡ pull request opened: ${prLink}\n`,
      '✓ turn 1 completed: 2 files changed (docs.json, troubleshooting.mdx)\n',
      '    Added troubleshooting.mdx and linked it in the navigation.\n',
    ]);
    expect(await api(`/v2/agent/${h.projectId}/job/${jobId}`)).toMatchObject({ status: 'completed', prLink });

    // The project comes from DOCWRIGHT_PROJECT this time.
    const followUp = await runCli(['jobs', 'message', jobId!, '--prompt', 'Mention the verbose flag', '--wait'], {
      ...environment,
      DOCWRIGHT_PROJECT: h.projectId,
    });
    expect(followUp.code, followUp.stderr).toBe(0);
    expect(followUp.stdout.trimEnd().split('\n').at(-1)).toBe(`Pull request: ${prLink}`);
    expectInOrder(followUp.stderr, [
      `Sent a follow-up to job ${jobId}`,
      '▸ turn 2 started: Mention the verbose flag\n',
      '  ✓ edit_file troubleshooting.mdx\n',
      `⇡ pull request updated: ${prLink}\n`,
      '✓ turn 2 completed: 1 file changed (troubleshooting.mdx)\n',
    ]);
    // The first turn's events are replayed by the stream but are not this command's progress.
    expect(followUp.stderr).not.toContain('write_file');
    expect(followUp.stderr).not.toContain('turn 1');

    const [human, json] = await Promise.all([
      runCli(['jobs', 'messages', jobId!, '--project', h.projectId], environment),
      runCli(['jobs', 'messages', jobId!, '--project', h.projectId, '--json'], environment),
    ]);
    expect(human.code, human.stderr).toBe(0);
    expectInOrder(human.stdout, [
      '#1 completed',
      '> Add a troubleshooting page\n',
      '  ✓ write_file troubleshooting.mdx\n',
      '  Added troubleshooting.mdx and linked it in the navigation.\n',
      'files changed: docs.json, troubleshooting.mdx · commit ',
      '#2 completed',
      '> Mention the verbose flag\n',
      '  ✓ edit_file troubleshooting.mdx\n',
      'files changed: troubleshooting.mdx',
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(await api(`/v2/agent/${h.projectId}/job/${jobId}/messages`));
  });

  test('--json prints the API objects unchanged: create, get, list, archive; no-change and archived outcomes', async () => {
    const [created, unchanged] = await Promise.all([
      runCli(['jobs', 'create', '--project', h.projectId, '--prompt', 'Is the quickstart fine?', '--json'], environment),
      runCli(['jobs', 'create', '--project', h.projectId, '--prompt', 'Is the index fine?', '--wait'], environment),
    ]);
    expect(created.code, created.stderr).toBe(0);
    const job = JSON.parse(created.stdout) as { id: string; createdAt: string };
    expect(Object.keys(job).sort()).toEqual(JOB_KEYS);
    expect(job).toMatchObject({
      status: 'active',
      prLink: null,
      archivedAt: null,
      error: null,
      model: 'openai-compatible:fake-model',
      source: { repository: h.repository, ref: 'main' },
    });
    const fromApi = (await api(`/v2/agent/${h.projectId}/job/${job.id}`)) as Record<string, unknown>;
    expect(Object.keys(job)).toEqual(Object.keys(fromApi));
    expect(job.createdAt).toBe(fromApi['createdAt']);
    expect(unchanged.code, unchanged.stderr).toBe(0);
    expect(unchanged.stdout).toMatch(/^Job \S+ completed with no changes, so there is no pull request\.\n$/);
    expect(unchanged.stderr).toContain('✓ turn 1 completed: no files changed\n    The docs already cover this; nothing to change.\n');

    await h.waitForSettled(job.id);
    const [got, listed, table] = await Promise.all([
      runCli(['jobs', 'get', job.id, '--project', h.projectId, '--json'], environment),
      runCli(['jobs', 'list', '--project', h.projectId, '--limit', '100', '--json'], environment),
      runCli(['jobs', 'list', '--project', h.projectId, '--status', 'completed'], environment),
    ]);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toEqual(await api(`/v2/agent/${h.projectId}/job/${job.id}`));
    expect(listed.code, listed.stderr).toBe(0);
    const list = JSON.parse(listed.stdout) as { jobs: Array<{ id: string }>; hasMore: boolean };
    expect(list).toEqual(await api(`/v2/agent/${h.projectId}/jobs?limit=100`));
    expect(list.jobs.map((item) => item.id)).toContain(job.id);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+CREATED\s+PULL REQUEST\s+ERROR$/);
    expect(table.stdout).toMatch(new RegExp(`^${job.id}\\s+completed\\s`, 'm'));

    const archived = await runCli(['jobs', 'archive', job.id, '--project', h.projectId, '--json'], environment);
    expect(archived.code, archived.stderr).toBe(0);
    const archivedJob = JSON.parse(archived.stdout) as { status: string; archivedAt: string | null };
    expect(archivedJob).toEqual(await api(`/v2/agent/${h.projectId}/job/${job.id}`));
    expect(archivedJob.status).toBe('archived');
    expect(archivedJob.archivedAt).not.toBeNull();

    const waitArchived = await runCli(['jobs', 'wait', job.id, '--project', h.projectId], environment);
    expect(waitArchived.code).toBe(1);
    expect(waitArchived.stderr).toContain(`job ${job.id} was archived`);
  });

  test('cancel stops an active job; a job that is not active is a 409, exit 1', async () => {
    const created = (await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'slow down and think' })).body as { id: string };
    const cancelled = await runCli(['jobs', 'cancel', created.id, '--project', h.projectId, '--json'], environment);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ id: created.id, status: 'failed', error: { code: 'cancelled' } });
    const human = await runCli(['jobs', 'cancel', created.id, '--project', h.projectId], environment);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('Only an active job can be cancelled; this one is failed.');
  });

  test('a failing job: retries shown, failure code and message printed, exit 1', async () => {
    const result = await runCli(['jobs', 'create', '--project', h.projectId, '--prompt', 'provider down please', '--wait'], environment);
    expect(result.code).toBe(1);
    expectInOrder(result.stderr, [
      '▸ turn 1 started: provider down please\n',
      '  ↻ attempt 1 failed (model_error: ',
      '▸ turn 1 started (attempt 2)',
      '✗ turn 1 failed: model_error: ',
      '(model_error)\n',
    ]);
    expect(result.stderr).toMatch(/docwright: job \S+ failed: .+ \(model_error\)\n$/);
    expect(result.stdout).toBe('');
  });

  test('errors: field errors, missing key, a usage error, and 429 with when to retry', async () => {
    const limited = await h.services.projects.create({
      name: 'Limited',
      repository: h.repository,
      ref: 'main',
      forge: 'local',
      settings: { rateLimitPerHour: 1 },
    });
    const limitedKey = (await h.services.keys.create({ projectId: limited.id })).key;
    const first = await fetch(`${environment.DOCWRIGHT_URL}/v2/agent/${limited.id}/job`, {
      method: 'POST',
      headers: { authorization: `Bearer ${limitedKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Is the quickstart fine?' }),
    });
    expect(first.status).toBe(201);

    const [empty, noKey, noPrompt, rateLimited] = await Promise.all([
      runCli(['jobs', 'create', '--project', h.projectId, '--prompt', ''], environment),
      runCli(['jobs', 'list', '--project', h.projectId], { DOCWRIGHT_URL: environment.DOCWRIGHT_URL! }),
      runCli(['jobs', 'create', '--project', h.projectId], environment),
      runCli(['jobs', 'create', '--project', limited.id, '--prompt', 'Is the quickstart fine?'], { ...environment, DOCWRIGHT_API_KEY: limitedKey }),
    ]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('\n  prompt: must be at least 1 character\n');
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('Set DOCWRIGHT_API_KEY to an API key');
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toContain("required option '--prompt <text>' (or --prompt-file <file>) not specified");
    expect(rateLimited.code).toBe(1);
    expect(rateLimited.stderr).toMatch(/1 times per hour; try again in \d+ seconds\. Retry after \d+ s \(at \d{4}-\d\d-\d\dT[\d:.]+Z\)\./);
  });

  test('create sends the branch and review controls; the server judges them against the forge', async () => {
    const create = (...flags: string[]) => runCli(['jobs', 'create', '--project', h.projectId, '--prompt', 'Is the quickstart fine?', ...flags], environment);
    const [named, autoMerge, reviewers, methodAlone, badMethod] = await Promise.all([
      create('--ref', 'main', '--branch-name', 'cli-change', '--json'),
      create('--auto-merge', '--label', 'docs'),
      create('--reviewer', 'alice', '--reviewer', 'bad name', '--draft'),
      create('--merge-method', 'squash'),
      create('--auto-merge', '--merge-method', 'octopus'),
    ]);
    expect(named.code, named.stderr).toBe(0);
    const job = JSON.parse(named.stdout) as { id: string; source: { ref: string } };
    expect(job.source.ref).toBe('main');
    const row = await h.services.database.db.selectFrom('jobs').select('branch').where('id', '=', job.id).executeTakeFirstOrThrow();
    expect(row.branch).toBe('docwright/cli-change');
    // The project is on the local forge: what reached the server is what it refuses.
    expect(autoMerge.code).toBe(1);
    expect(autoMerge.stderr).toContain('autoMerge needs a GitHub or GitLab project');
    expect(reviewers.code).toBe(1);
    expect(reviewers.stderr).toContain('\n  reviewers.1: must be a user name');
    expect(methodAlone.code).toBe(1);
    expect(methodAlone.stderr).toContain('\n  mergeMethod: needs autoMerge: true');
    expect(badMethod.code).toBe(2);
    expect(badMethod.stderr).toContain('Allowed choices are merge, squash, rebase');
  });

  test('help: jobs lists every subcommand, and each has usage, a description and --json', async () => {
    const [listing, createHelp] = await Promise.all([runCli(['jobs', '--help'], {}), runCli(['jobs', 'create', '--help'], {})]);
    expect(listing.code).toBe(0);
    for (const name of SUBCOMMANDS) expect(listing.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(createHelp.code).toBe(0);
    expect(createHelp.stdout).toMatch(/^Usage: docwright jobs create \[options\]/);

    const program = new Command('docwright').addCommand(jobsCommand());
    const jobs = program.commands[0]!;
    expect(jobs.commands.map((command) => command.name())).toEqual(SUBCOMMANDS);
    for (const command of jobs.commands) {
      const help = command.helpInformation();
      expect(help, command.name()).toMatch(new RegExp(`^Usage: docwright jobs ${command.name()} `));
      expect(command.description().length, command.name()).toBeGreaterThan(20);
      expect(help, command.name()).toContain('--json');
      expect(help, command.name()).toContain('--project <id>');
    }
  });
});
