import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { JOB_STATUSES, type JobStatus } from '../../src/jobs/job.js';
import { acceptsMessages, assertTransition, canTransition, NEW_JOB_STATUS } from '../../src/jobs/job-state.js';
import { RunWrites } from '../../src/jobs/run-writes.js';
import type { Project } from '../../src/projects/project.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { rejection } from '../helpers/rejection.js';

describe('the job state machine', () => {
  const allowed: Array<[JobStatus, JobStatus]> = [
    ['active', 'completed'],
    ['active', 'failed'],
    ['active', 'active'],
    ['completed', 'active'],
    ['failed', 'active'],
    ['active', 'archived'],
    ['completed', 'archived'],
    ['failed', 'archived'],
  ];

  test('allows exactly the moves of decisions.md', () => {
    for (const from of JOB_STATUSES) {
      for (const to of JOB_STATUSES) {
        const expected = allowed.some(([a, b]) => a === from && b === to);
        expect(canTransition(from, to), `${from} → ${to}`).toBe(expected);
      }
    }
  });

  test('a new job is active; archived is final and refuses messages', () => {
    expect(NEW_JOB_STATUS).toBe('active');
    expect(JOB_STATUSES.filter((status) => canTransition('archived', status))).toEqual([]);
    expect(JOB_STATUSES.filter(acceptsMessages)).toEqual(['active', 'completed', 'failed']);
  });

  test('an illegal move is a typed 409 error', () => {
    expect(() => assertTransition('job-1', 'completed', 'failed')).toThrow(expect.objectContaining({ code: 'illegal_job_transition', status: 409 }));
    expect(() => assertTransition('job-1', 'active', 'completed')).not.toThrow();
  });
});

describe.each(BACKENDS)('status writes ask the state machine [%s]', (dialect) => {
  let t: TestApp;
  let project: Project;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    project = await createTestProject(t.services);
  });
  afterEach(async () => t.close());

  test('settling a job that is not active is refused, and writes nothing', async () => {
    const { db } = t.services.database;
    const jobId = (await t.services.jobs.create(project, 'Write a page')).job.id;
    await db.updateTable('job_turns').set({ status: 'completed' }).where('job_id', '=', jobId).execute();
    // A state no path should produce: the job already settled while its queue row is still there.
    await db.updateTable('jobs').set({ status: 'failed' }).where('id', '=', jobId).execute();
    const claimed = await t.services.queue.claim('worker-a', 60_000);
    expect(claimed?.jobId).toBe(jobId);
    const writes = new RunWrites({ database: t.services.database, clock: t.clock, queue: t.services.queue, notifier: t.services.notifier });

    const error = await rejection(writes.settle({ ...claimed!, workerId: 'worker-a' }));

    expect(error).toMatchObject({ code: 'illegal_job_transition' });
    expect((await db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow()).status).toBe('failed');
    expect(await db.selectFrom('job_queue').select('job_id').where('job_id', '=', jobId).executeTakeFirst()).toBeDefined();
  });

  test('a follow-up re-activates a settled job and an archived one refuses it', async () => {
    const { job } = await t.services.jobs.create(project, 'Write a page');
    await t.services.database.db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', job.id).execute();
    expect((await t.services.jobs.message(project, job.id, 'More')).job.status).toBe('active');
    await t.services.jobs.archive(project, job.id);
    expect(await rejection(t.services.jobs.message(project, job.id, 'Again'))).toMatchObject({ code: 'job_archived', status: 409 });
  });
});
