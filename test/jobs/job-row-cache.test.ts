import { EventEmitter } from 'node:events';
import { describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { JobsTable } from '../../src/db/schema.js';
import { JOB_ROW_MAX_AGE_MS, JobRowCache, type JobRowNotifications } from '../../src/jobs/job-row-cache.js';
import type { Channel } from '../../src/queue/notifier.js';

/** A notifier whose notifications and LISTEN connection the test drives by hand. */
class FakeNotifications implements JobRowNotifications {
  private readonly emitter = new EventEmitter();
  listening = true;
  subscribe(channel: Channel, handler: (payload: string) => void): () => void {
    this.emitter.on(channel, handler);
    return () => this.emitter.off(channel, handler);
  }
  onListenerChange(handler: () => void): () => void {
    this.emitter.on('listener', handler);
    return () => this.emitter.off('listener', handler);
  }
  notify(channel: Channel, payload: string): void {
    this.emitter.emit(channel, payload);
  }
  setListening(listening: boolean): void {
    this.listening = listening;
    this.emitter.emit('listener');
  }
}

const row = (id: string, projectId: string, status: string): JobsTable => ({
  id,
  project_id: projectId,
  status,
  model: 'm',
  repository: '/srv/docs',
  ref: 'main',
  branch: `docwright/${id}`,
  pr_number: null,
  pr_link: null,
  pr_status: null,
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
  cost_microusd: null,
});

/** The "store": rows by id, counting reads; `hold` keeps the next reads pending until released. */
function fakeStore() {
  const rows = new Map<string, JobsTable>();
  let reads = 0;
  let gate: Promise<void> | null = null;
  return {
    rows,
    reads: () => reads,
    hold(): () => void {
      let release: () => void = () => {};
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = null;
        release();
      };
    },
    load: async (id: string): Promise<JobsTable | undefined> => {
      reads++;
      // The row as it is when the read reaches the store, i.e. when the read starts.
      const answer = rows.get(id);
      if (gate !== null) await gate;
      return answer;
    },
  };
}

function setUp() {
  const store = fakeStore();
  const notifications = new FakeNotifications();
  const clock = new ManualClock(1_000_000);
  const cache = new JobRowCache(store.load, notifications, clock);
  store.rows.set('j1', row('j1', 'p1', 'active'));
  store.rows.set('j2', row('j2', 'p1', 'active'));
  store.rows.set('j3', row('j3', 'p2', 'active'));
  return { store, notifications, clock, cache };
}

describe('JobRowCache, the PostgreSQL poll read', () => {
  test('a repeated poll is answered from memory until a notification says the job changed', async () => {
    const { store, notifications, cache } = setUp();
    expect((await cache.read('p1', 'j1'))?.status).toBe('active');
    expect((await cache.read('p1', 'j1'))?.status).toBe('active');
    expect(store.reads()).toBe(1);
    store.rows.set('j1', row('j1', 'p1', 'completed'));
    notifications.notify('docwright_job_events', 'j2');
    expect((await cache.read('p1', 'j1'))?.status).toBe('active');
    notifications.notify('docwright_job_events', 'j1');
    expect((await cache.read('p1', 'j1'))?.status).toBe('completed');
    expect(store.reads()).toBe(2);
  });

  test("a project's notification drops that project's jobs only", async () => {
    const { store, notifications, cache } = setUp();
    await Promise.all([cache.read('p1', 'j1'), cache.read('p1', 'j2'), cache.read('p2', 'j3')]);
    expect(store.reads()).toBe(3);
    store.rows.set('j1', row('j1', 'p1', 'completed'));
    store.rows.set('j3', row('j3', 'p2', 'failed'));
    notifications.notify('docwright_project_jobs', 'p1');
    expect((await cache.read('p1', 'j1'))?.status).toBe('completed');
    expect((await cache.read('p2', 'j3'))?.status).toBe('active');
    expect(store.reads()).toBe(4);
    await cache.read('p1', 'j2');
    expect(store.reads()).toBe(5);
  });

  test('key changes (revocations, project deletions) drop everything', async () => {
    const { store, notifications, cache } = setUp();
    await cache.read('p1', 'j1');
    store.rows.delete('j1');
    notifications.notify('docwright_keys', 'revoked');
    expect(await cache.read('p1', 'j1')).toBeUndefined();
  });

  test('a read in flight when its job changed is answered but not kept', async () => {
    const { store, notifications, cache } = setUp();
    const release = store.hold();
    const inFlight = cache.read('p1', 'j1');
    store.rows.set('j1', row('j1', 'p1', 'completed'));
    notifications.notify('docwright_job_events', 'j1');
    release();
    expect((await inFlight)?.status).toBe('active');
    expect((await cache.read('p1', 'j1'))?.status).toBe('completed');
    expect(store.reads()).toBe(2);
  });

  test("a read in flight when its project's jobs changed is not kept either", async () => {
    const { store, notifications, cache } = setUp();
    const release = store.hold();
    const inFlight = cache.read('p1', 'j1');
    store.rows.set('j1', row('j1', 'p1', 'completed'));
    notifications.notify('docwright_project_jobs', 'p1');
    release();
    await inFlight;
    expect((await cache.read('p1', 'j1'))?.status).toBe('completed');
  });

  test('nothing is kept or answered from memory while the LISTEN connection is down, nor across a reconnect', async () => {
    const { store, notifications, cache } = setUp();
    await cache.read('p1', 'j1');
    notifications.setListening(false);
    // Missed while down: no notification will ever tell.
    store.rows.set('j1', row('j1', 'p1', 'completed'));
    expect((await cache.read('p1', 'j1'))?.status).toBe('completed');
    expect((await cache.read('p1', 'j1'))?.status).toBe('completed');
    expect(store.reads()).toBe(3);
    expect(cache.size).toBe(0);
    notifications.setListening(true);
    await cache.read('p1', 'j1');
    await cache.read('p1', 'j1');
    expect(store.reads()).toBe(4);
    // A read that began before the connection dropped is not kept.
    const release = store.hold();
    const inFlight = cache.read('p1', 'j2');
    notifications.setListening(false);
    notifications.setListening(true);
    release();
    await inFlight;
    expect(cache.size).toBe(0);
  });

  test('an entry answers for at most JOB_ROW_MAX_AGE_MS, and not at all once the clock moved back', async () => {
    const { store, clock, cache } = setUp();
    await cache.read('p1', 'j1');
    clock.advance(JOB_ROW_MAX_AGE_MS - 1);
    await cache.read('p1', 'j1');
    expect(store.reads()).toBe(1);
    store.rows.set('j1', row('j1', 'p1', 'completed'));
    clock.advance(1);
    expect((await cache.read('p1', 'j1'))?.status).toBe('completed');
    clock.advance(-10);
    await cache.read('p1', 'j1');
    expect(store.reads()).toBe(3);
  });

  test('a job asked for under another project is not found, and not kept', async () => {
    const { store, cache } = setUp();
    expect(await cache.read('p2', 'j1')).toBeUndefined();
    expect(await cache.read('p2', 'nope')).toBeUndefined();
    expect((await cache.read('p1', 'j1'))?.id).toBe('j1');
    expect(await cache.read('p2', 'j1')).toBeUndefined();
    expect(store.reads()).toBe(3);
  });
});
