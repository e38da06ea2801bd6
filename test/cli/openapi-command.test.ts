import { expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

test('docwright openapi prints the served document without a server, with --server as the default origin', async () => {
  const result = await runCli(['openapi', '--server', 'https://docs-api.example.org/'], {});
  expect(result.code).toBe(0);
  const document = JSON.parse(result.stdout);
  expect(document.openapi).toBe('3.1.0');
  expect(document.servers[0].variables.origin.default).toBe('https://docs-api.example.org');
  expect(document.paths['/v2/agent/{projectId}/job'].post.operationId).toBe('createAgentJob');
});
