import { afterEach, describe, expect, test } from 'vitest';
import type { Dialect } from '../../src/db/database.js';
import { startRunScenario, type RunScenario } from '../helpers/run-scenario.js';
import type { WorkerChild } from '../helpers/worker-child.js';
import { docsAgentScript } from './docs-agent-script.js';

/**
 * A `docwright worker` child is SIGKILLed the moment it asks the forge to open the pull
 * request: the forge opens it, and the reviewers, labels and auto-merge that would follow
 * never come. The worker that takes the job over adopts the pull request, which the job has
 * not recorded, and applies them, once.
 */
const CASES: Array<[Dialect, 'github' | 'gitlab']> = [
  ['sqlite', 'github'],
  ['postgres', 'github'],
  ['sqlite', 'gitlab'],
  ['postgres', 'gitlab'],
];

describe('review controls when the worker dies right after opening the pull request', () => {
  let scenario: RunScenario | null = null;
  afterEach(async () => {
    await scenario?.close();
    scenario = null;
  });

  test.each(CASES)('[%s, %s] the next worker applies them to the pull request it adopts', async (dialect, forge) => {
    scenario = await startRunScenario(dialect, forge, docsAgentScript, { gitlab: { users: [{ id: 31, username: 'alice' }] } });
    const { t, github, gitlab, project } = scenario;
    let child: WorkerChild | null = null;
    let killed = false;
    const opening = (method: string, path: string): boolean =>
      method === 'POST' && (forge === 'github' ? path.endsWith('/pulls') : path.endsWith('/merge_requests'));
    const kill = (method: string, path: string): undefined => {
      if (!killed && child && opening(method, path)) {
        killed = true;
        child.process.kill('SIGKILL');
      }
      return undefined; // the forge opens it; its answer reaches no one
    };
    github?.intercept((request) => kill(request.method, request.path));
    gitlab?.intercept((request) => kill(request.method, request.path));

    child = scenario.spawnWorker();
    const { job } = await t.services.jobs.create(project, 'Add a troubleshooting page', {}, { reviewers: ['alice'], labels: ['docs'], autoMerge: true });
    await child.exited;
    expect(killed).toBe(true);
    expect(await scenario.pullRequestCount()).toBe(1);
    expect((await t.services.jobRepository.get(project.id, job.id)).prLink).toBeNull();

    scenario.startRescuer();
    const done = await scenario.waitForSettled(job.id);
    expect(done).toMatchObject({ status: 'completed', prLink: await scenario.expectedPrLink() });
    expect(await scenario.pullRequestCount()).toBe(1);
    if (github) {
      const pull = github.pulls[0]!;
      expect(pull.labels).toEqual([{ name: 'docs' }]);
      expect(pull.requested_reviewers).toEqual([{ login: 'alice', type: 'User' }]);
      expect(pull.auto_merge).toMatchObject({ merge_method: 'merge' });
      expect(github.requests.filter((request) => request.path === '/graphql')).toHaveLength(1);
    } else {
      const mergeRequest = gitlab!.mergeRequests[0]!;
      // The dead attempt's create carried labels and reviewers; only auto-merge was missing.
      expect(mergeRequest).toMatchObject({ labels: ['docs'], merge_when_pipeline_succeeds: true });
      expect((mergeRequest.reviewers as Array<{ id: number }>).map((user) => user.id)).toEqual([31]);
      expect(gitlab!.requests.filter((request) => request.path.endsWith('/merge'))).toHaveLength(1);
      // Nothing was missing but auto-merge: no update of labels or reviewers.
      const puts = gitlab!.requests.filter((request) => request.method === 'PUT' && request.path.endsWith('/merge_requests/1'));
      expect(puts.filter((request) => 'add_labels' in (request.body as object) || 'reviewer_ids' in (request.body as object))).toEqual([]);
    }
    const turns = await t.services.jobRepository.turns(project.id, job.id);
    expect(turns.map((turn) => [turn.status, turn.warnings])).toEqual([['completed', []]]);
  });
});
