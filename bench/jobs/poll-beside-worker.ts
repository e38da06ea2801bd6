import { JobClient } from './job-client.js';
import { startJobServer } from './job-server.js';
import type { LoadSettings } from './poll-throughput.js';
import { comparePollWhileWriting, type PollWhileWriting, type WritingLoad } from './poll-while-writing.js';
import type { TimedFakeModel } from './timed-fake-model.js';

/**
 * The poll-while-writing figure in the service topology: the polls go to an API process
 * (`docwright serve --no-worker`) while a separate worker process (`docwright worker`)
 * runs the writing jobs on the same store (the same SQLite file, or the same PostgreSQL
 * database). The API process pays for what the writes do to its caches (and shares the
 * machine with the worker), not for the worker's own work in its event loop.
 */
export async function comparePollBesideWorker(options: {
  /** A fresh data dir: with SQLite, both processes share the file in it. */
  dataDir: string;
  /** A fresh PostgreSQL database, or undefined for SQLite. */
  databaseUrl: string | undefined;
  model: TimedFakeModel;
  /** A small docs repository for the writing jobs' project. */
  repository: string;
  bare: { url: string; pid: number };
  load: WritingLoad;
  settings: LoadSettings;
  log: (message: string) => void;
}): Promise<PollWhileWriting> {
  const common = { dataDir: options.dataDir, modelUrl: options.model.url, ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }) };
  const api = await startJobServer({ ...common, repositories: { writing: options.repository }, role: 'api' });
  const worker = await startJobServer({
    ...common,
    repositories: {},
    role: 'worker',
    environment: { DOCWRIGHT_WORKER_CONCURRENCY: String(options.load.jobs), DOCWRIGHT_PUBLIC_URL: api.url },
  });
  const project = api.projects.writing;
  if (project === undefined) throw new Error('the API process created no project');
  const client = new JobClient(api.url, project.projectId, project.apiKey);
  try {
    return await comparePollWhileWriting({
      client,
      model: options.model,
      serverUrl: api.url,
      serverPid: api.pid,
      projectId: project.projectId,
      apiKey: project.apiKey,
      bareUrl: options.bare.url,
      barePid: options.bare.pid,
      load: options.load,
      settings: options.settings,
      log: options.log,
    });
  } finally {
    client.close();
    await worker.stop();
    await api.stop();
  }
}
