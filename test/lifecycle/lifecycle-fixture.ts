import { systemClock } from '../../src/core/clock.js';
import type { Dialect } from '../../src/db/database.js';
import type { Project } from '../../src/projects/project.js';
import type { Job } from '../../src/jobs/job.js';
import type { DocwrightProcess } from '../helpers/docwright-process.js';
import { ServerSentEventParser, type ServerSentEvent } from '../../src/cli/jobs-sse-parser.js';
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createDocsRepository } from '../helpers/docs-repository.js';
import { processEnvironment } from '../helpers/docwright-process.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';

/** A promise the test opens by hand, and one that tells when something reached it. */
export interface Gate {
  /** Resolves when something arrived; rejects after 30 s (a run that never starts fails fast). */
  reached: Promise<void>;
  /** Called by whatever waits at the gate. */
  arrive(): void;
  open(): void;
  opened: Promise<void>;
}

export function createGate(): Gate {
  let arrive!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((resolve, reject) => {
    arrive = resolve;
    setTimeout(() => reject(new Error('nothing reached the gate within 30 s')), 30_000).unref();
  });
  reached.catch(() => {});
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { reached, arrive, open, opened };
}

/**
 * The model holds its first answer at `gate` (the turn is then "running": cloned, in the
 * model loop, lease held), then plays the docs agent script.
 */
export function gatedScript(gate: Gate): FakeModelScript {
  let first = true;
  return async (request, callIndex) => {
    if (first) {
      first = false;
      gate.arrive();
      await gate.opened;
    }
    return docsAgentScript(request, callIndex);
  };
}

export interface LifecycleFixture {
  t: TestApp;
  model: FakeModelServer;
  project: Project;
  key: string;
  repository: string;
  /** Environment of a child process on this test's store and fake model. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Authorized fetch of a path on a child's URL. */
  api(base: string, path: string, init?: RequestInit): Promise<Response>;
  /** The job once it is no longer active (read from the store), within `timeoutMs`. */
  settled(jobId: string, timeoutMs?: number): Promise<Job>;
  close(): Promise<void>;
}

/**
 * A test's store (with a local-forge project over a docs repository and an admin key) and
 * a fake model; the processes under test are children started with `env()`.
 */
export async function createLifecycleFixture(dialect: Dialect, script: FakeModelScript): Promise<LifecycleFixture> {
  const model = await startFakeModelServer({ script });
  // The jobs this process creates name the model the children resolve to the fake server.
  const t = await createTestApp(dialect, { DOCWRIGHT_MODEL: 'openai-compatible:fake-model' }, { clock: systemClock });
  const repository = createDocsRepository();
  const project = await t.services.projects.create({ name: 'Docs', repository, ref: 'main', forge: 'local', settings: {} });
  const key = (await t.services.keys.create({ projectId: project.id })).key;
  return {
    t,
    model,
    project,
    key,
    repository,
    env: (extra = {}) =>
      processEnvironment(t.testDatabase, {
        DOCWRIGHT_MODEL: 'openai-compatible:fake-model',
        DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.url,
        DOCWRIGHT_MODEL_RETRIES: '0',
        ...extra,
      }),
    settled: (jobId, timeoutMs = 30_000) =>
      eventually(
        async () => {
          const current = await t.services.jobRepository.get(project.id, jobId);
          return current.status === 'active' ? undefined : current;
        },
        timeoutMs,
        `job ${jobId} settled`,
      ),
    api: (base, path, init = {}) =>
      fetch(`${base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...Object.fromEntries(new Headers(init.headers)) },
      }),
    async close() {
      await t.close();
      await model.close();
    },
  };
}

export interface OpenStream {
  /** Every message received so far (comments excluded). */
  events: ServerSentEvent[];
  /** Resolves when the server ends the response (or the connection drops). */
  ended: Promise<'ended' | 'dropped'>;
  cancel(): void;
}

/** Opens a Server-Sent Events stream and reads it in the background. */
export async function openStream(url: string, key: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...headers }, signal: controller.signal });
  if (response.status !== 200 || response.body === null) throw new Error(`stream answered ${response.status}: ${await response.text()}`);
  const parser = new ServerSentEventParser();
  const events: ServerSentEvent[] = [];
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const ended = (async (): Promise<'ended' | 'dropped'> => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended';
        events.push(...parser.push(decoder.decode(value, { stream: true })));
      }
    } catch {
      return 'dropped';
    }
  })();
  return { events, ended, cancel: () => controller.abort() };
}

/** Polls `check` every 50 ms until it returns something other than undefined. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The shutdown phases a process logged, in order. */
export const shutdownPhases = (child: DocwrightProcess): string[] =>
  child.logs.map((line) => line.msg).filter((msg) => msg.startsWith('shutdown') || msg === 'stopped');
