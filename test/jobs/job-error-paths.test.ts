import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { workspacesDirectory } from '../../src/git/workspace.js';
import { scriptedToolCalls, type FakeModelScript } from '../fakes/fake-model-server.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { BACKENDS } from '../helpers/test-database.js';

/**
 * A job's error, as the API shows it, names no absolute path of the server. Here git
 * fails inside the job's clone (another git process holds its index lock), and git's
 * message names the lock file by its absolute path under the data dir.
 */
describe.each(BACKENDS)('job errors carry no server paths [%s]', (dialect) => {
  let h: JobHarness | undefined;
  afterEach(async () => h?.close());

  test('a git failure in the workspace is shown with <workspace>, in the job, its turn and its events', async () => {
    let workspaces = '';
    const script: FakeModelScript = (request, callIndex) => {
      // After the first tool call the clone exists: leave a lock behind as a crashed git would.
      if (callIndex === 1) for (const entry of readdirSync(workspaces)) writeFileSync(join(workspaces, entry, '.git', 'index.lock'), '');
      return scriptedToolCalls([{ name: 'list_files', arguments: { pattern: '*.mdx' } }], 'Nothing to change.')(request, callIndex);
    };
    h = await createJobHarness(dialect, script);
    workspaces = workspacesDirectory(h.config.dataDir);
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Check the pages' });
    const jobId = created.body.id as string;
    const done = await h.waitForSettled(jobId);

    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('git_failed');
    expect(done.error?.message).toContain("'<workspace>/.git/index.lock'");
    const turns = (await h.request('GET', `/v2/agent/${h.projectId}/job/${jobId}/messages`)).body.messages as Array<{ error: unknown }>;
    const events = await h.services.database.db.selectFrom('job_events').select('data').where('job_id', '=', jobId).execute();
    const shown = JSON.stringify([done, turns, events]);
    expect(shown).toContain('index.lock');
    for (const serverPath of [h.config.dataDir, workspaces, process.cwd()]) expect(shown).not.toContain(serverPath);
  });
});
