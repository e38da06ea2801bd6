import { afterEach } from 'vitest';
import { startFakeModelServer, type FakeModelScript, type FakeModelServer } from './fake-model-server.js';

/**
 * For a test file's fake model servers: `start(script)` starts one, and every server
 * started in a test is closed after it.
 */
export function fakeModelServers(): (script: FakeModelScript) => Promise<FakeModelServer> {
  const servers: FakeModelServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (script) => {
    const server = await startFakeModelServer({ script });
    servers.push(server);
    return server;
  };
}
