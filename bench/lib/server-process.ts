/**
 * Child-process entry of a benchmarked Docwright server (see docwright-server.ts). The
 * server runs in its own process so the load generator never shares its event loop.
 * Configuration comes from the environment exactly as in production; the parent gets
 * `{ url, projectId, apiKey }` once the server listens, asks "cpu-usage" for the process's
 * CPU time so far, and sends "stop" to end it.
 */
import { loadConfig } from '../../src/config/load-config.js';
import { createLogger } from '../../src/app/logger.js';
import type { ServiceOverrides } from '../../src/app/services.js';
import { startServer } from '../../src/server/start-server.js';

const config = loadConfig();
/**
 * BENCH_VERIFICATION_LOOPBACK=1: agent verification fetches key directories from loopback
 * (every name resolves to 127.0.0.1, as in the tests' fake key directory) and reverse DNS
 * answers "no such name" at once, so a benchmark needs no internet. Never in production.
 */
const overrides: ServiceOverrides =
  process.env.BENCH_VERIFICATION_LOOPBACK === '1'
    ? {
        verificationNetwork: {
          allowLoopback: true,
          resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
          dns: { reverse: () => Promise.reject(Object.assign(new Error('no PTR record'), { code: 'ENOTFOUND' })), forward: () => Promise.resolve([]) },
        },
      }
    : {};
const server = await startServer({ config, logger: createLogger({ level: config.logLevel }), overrides });
const project = await server.services.projects.create({
  name: 'Benchmark docs',
  repository: config.dataDir,
  ref: 'main',
  forge: 'local',
  // BENCH_PROJECT_SETTINGS: JSON project settings, e.g. allowedOrigins for the page beacon.
  settings: process.env.BENCH_PROJECT_SETTINGS === undefined ? {} : (JSON.parse(process.env.BENCH_PROJECT_SETTINGS) as Record<string, unknown>),
});
const key = await server.services.keys.create({ projectId: project.id, scope: 'admin', name: 'bench', expiresAt: null });
process.send?.({ type: 'ready', url: server.url, projectId: project.id, apiKey: key.key });
process.on('message', (message: unknown) => {
  // CPU time survives a busy machine better than wall-clock time does.
  if (message === 'cpu-usage') process.send?.({ type: 'cpu-usage', ...process.cpuUsage() });
  if (message !== 'stop') return;
  void server.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
