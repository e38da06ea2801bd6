import { afterEach, describe, expect, test } from 'vitest';
import { isDocwrightError } from '../../src/core/errors.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { JobRepository } from '../../src/jobs/job-repository.js';
import { BACKENDS, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

describe.each(BACKENDS)('JobRepository.get, the poll read [%s]', (dialect) => {
  let t: TestDatabase;
  afterEach(async () => t?.close());

  async function seed(): Promise<void> {
    for (const project of ['p1', 'p2']) {
      await t.database.db
        .insertInto('projects')
        .values({ id: project, name: project, repository: '/srv/docs', ref: 'main', forge: 'local', settings: '{}', created_at: 1, updated_at: 1 })
        .execute();
    }
    for (const [id, project] of [
      ['j1', 'p1'],
      ['j2', 'p1'],
      ['j3', 'p2'],
    ] as const) {
      await t.database.db
        .insertInto('jobs')
        .values({
          id,
          project_id: project,
          status: 'active',
          model: 'm',
          repository: '/srv/docs',
          ref: 'main',
          branch: `docwright/${id}`,
          pr_number: null,
          pr_link: null,
          error_code: null,
          error_message: null,
          created_at: 1,
          updated_at: 1,
          archived_at: null,
          input_tokens: 0,
          output_tokens: 0,
          cached_input_tokens: 0,
          cache_write_tokens: 0,
          unresolved_problems: 0,
          pull_request_options: null,
        })
        .execute();
    }
  }

  async function notFoundCode(read: Promise<unknown>): Promise<string> {
    const error = await read.then(
      () => null,
      (reason: unknown) => reason,
    );
    return isDocwrightError(error) ? error.code : 'no error';
  }

  test('concurrent polls each get their own job, scoped to the project', async () => {
    t = await openTestDatabase(dialect);
    await seed();
    const jobs = new JobRepository(t.database);
    const answers = await Promise.all([jobs.get('p1', 'j1'), jobs.get('p1', 'j2'), jobs.get('p2', 'j3'), jobs.get('p1', 'j1')]);
    expect(answers.map((job) => job.id)).toEqual(['j1', 'j2', 'j3', 'j1']);
    expect(await notFoundCode(jobs.get('p2', 'j1'))).toBe('not_found');
    expect(await notFoundCode(jobs.get('p1', 'nope'))).toBe('not_found');
  });

  test('a poll never sees a write transaction half-done, and sees it as soon as it commits', async () => {
    t = await openTestDatabase(dialect);
    await seed();
    const jobs = new JobRepository(t.database);
    expect((await jobs.get('p1', 'j1')).status).toBe('active');
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let updated: () => void = () => {};
    const inside = new Promise<void>((resolve) => (updated = resolve));
    const writing = writeTransaction(t.database, async (executor) => {
      await executor.updateTable('jobs').set({ status: 'completed', pr_link: 'http://docs.test/pulls/1' }).where('id', '=', 'j1').execute();
      updated();
      await held;
    });
    await inside;
    expect((await jobs.get('p1', 'j1')).status).toBe('active');
    release();
    await writing;
    expect(await jobs.get('p1', 'j1')).toMatchObject({ status: 'completed', prLink: 'http://docs.test/pulls/1' });
  });
});
