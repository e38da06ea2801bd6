/**
 * Child-process entry of the Docwright server the jobs benchmarks drive (see
 * job-server.ts): the production start-up path (`startServer` with its in-process worker,
 * configured from the environment), plus one local-forge project per repository named in
 * DOCWRIGHT_BENCH_REPOSITORIES (a JSON object name → path) and an admin key for each.
 */
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/app/logger.js';
import { startServer } from '../../src/server/start-server.js';

const repositories = JSON.parse(process.env.DOCWRIGHT_BENCH_REPOSITORIES ?? '{}') as Record<string, string>;
const config = loadConfig();
const server = await startServer({ config, logger: createLogger({ level: config.logLevel }) });
const projects: Record<string, { projectId: string; apiKey: string }> = {};
for (const [name, repository] of Object.entries(repositories)) {
  const project = await server.services.projects.create({ name, repository, ref: 'main', forge: 'local', settings: {} });
  const key = await server.services.keys.create({ projectId: project.id, scope: 'admin', name: 'bench', expiresAt: null });
  projects[name] = { projectId: project.id, apiKey: key.key };
}
process.send?.({ type: 'ready', url: server.url, projects });
process.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  void server.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
