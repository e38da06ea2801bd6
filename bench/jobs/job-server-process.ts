/**
 * Child-process entry of the Docwright server the jobs benchmarks drive (see
 * job-server.ts): the production start-up path (`startServer` with its in-process worker,
 * configured from the environment), plus one local-forge project per repository named in
 * DOCWRIGHT_BENCH_REPOSITORIES (a JSON object name → path) and an admin key for each.
 * DOCWRIGHT_BENCH_ROLE=api starts it without the worker; =worker starts `startWorker` alone.
 */
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/app/logger.js';
import { startServer, startWorker } from '../../src/server/start-server.js';

const repositories = JSON.parse(process.env.DOCWRIGHT_BENCH_REPOSITORIES ?? '{}') as Record<string, string>;
const role = process.env.DOCWRIGHT_BENCH_ROLE ?? 'serve';
const config = loadConfig();
const logger = createLogger({ level: config.logLevel });

/** Tells the parent it is up, and stops on its "stop". */
function announce(ready: object, stop: () => Promise<void>): void {
  process.send?.({ type: 'ready', ...ready });
  process.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    void stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

if (role === 'worker') {
  const worker = await startWorker({ config, logger });
  announce({ url: '', projects: {} }, () => worker.stop());
} else {
  const server = await startServer({ config, logger, worker: role !== 'api' });
  const projects: Record<string, { projectId: string; apiKey: string }> = {};
  for (const [name, repository] of Object.entries(repositories)) {
    const project = await server.services.projects.create({ name, repository, ref: 'main', forge: 'local', settings: {} });
    const key = await server.services.keys.create({ projectId: project.id, scope: 'admin', name: 'bench', expiresAt: null });
    projects[name] = { projectId: project.id, apiKey: key.key };
  }
  announce({ url: server.url, projects }, () => server.stop());
}
