import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';
import { createDocsRepository } from '../helpers/docs-repository.js';
import { runCli } from '../helpers/run-cli.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/cluster.ts', import.meta.url));

/** What the cluster writes to DIR/cluster.json once it is ready (scripts/cluster/start-cluster.ts). */
interface ClusterState {
  publicUrl: string;
  apis: Array<{ name: string; url: string; pid: number }>;
  workers: Array<{ name: string; pid: number }>;
  proxy: { url: string } | null;
  postgres: { pid: number } | null;
  cliEnvironment: Record<string, string>;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
};

let model: FakeModelServer | undefined;
let directory: string | undefined;
afterEach(async () => {
  await model?.close();
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
});

test('npm run cluster: a job runs through two API processes and a worker, and one SIGINT stops every process', { timeout: 300_000 }, async () => {
  model = await startFakeModelServer({ script: docsAgentScript });
  const repository = createDocsRepository();
  directory = mkdtempSync(join(tmpdir(), 'docwright-cluster-test-'));
  const supervisor = spawn(process.execPath, ['--import', 'tsx', SCRIPT, '--api', '2', '--workers', '1', '--port', '0', '--dir', directory], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DOCWRIGHT_MODEL: 'openai-compatible:fake-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.url,
      DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'sk-test-provider-secret-123456',
      DOCWRIGHT_MODEL_RETRIES: '0',
      DOCWRIGHT_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  supervisor.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  supervisor.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(supervisor, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  try {
    await expect.poll(() => output.includes('| ready:') || supervisor.exitCode !== null, { timeout: 240_000, interval: 200 }).toBe(true);
    expect(output, output).toContain('| ready:');
    // Every line carries its process's name; no colour on a pipe.
    expect(output).toMatch(/^api-1 +\| /m);
    expect(output).not.toContain('\u001b[');
    const state = JSON.parse(readFileSync(join(directory, 'cluster.json'), 'utf8')) as ClusterState;
    expect(state.apis).toHaveLength(2);
    const [first, second] = state.apis as [ClusterState['apis'][number], ClusterState['apis'][number]];

    const project = await runCli(['projects', 'create', '--name', 'Docs', '--repository', repository, '--json'], state.cliEnvironment, { timeoutMs: 60_000 });
    expect(project.code, project.stderr).toBe(0);
    const projectId = (JSON.parse(project.stdout) as { id: string }).id;
    const created = await runCli(['keys', 'create', '--project', projectId, '--json'], state.cliEnvironment, { timeoutMs: 60_000 });
    expect(created.code, created.stderr).toBe(0);
    const key = (JSON.parse(created.stdout) as { key: string }).key;
    const call = async (base: string, method: 'GET' | 'POST', path: string, body?: object): Promise<{ status: number; json: Record<string, unknown> }> => {
      const response = await fetch(`${base}/v2/agent/${projectId}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    const statusThrough = async (base: string, jobId: string): Promise<unknown> => (await call(base, 'GET', `/job/${jobId}`)).json.status;

    // Created through API 1, run by the worker, polled through API 2.
    const job = await call(first.url, 'POST', '/job', { prompt: 'Add a troubleshooting page' });
    expect(job.status).toBe(201);
    const jobId = job.json.id as string;
    await expect.poll(() => statusThrough(second.url, jobId), { timeout: 90_000, interval: 100 }).toBe('completed');
    const done = await call(second.url, 'GET', `/job/${jobId}`);
    // The worker has no HTTP address of its own: its link is the cluster's public one (the proxy).
    expect(String(done.json.prLink)).toMatch(new RegExp(`^${state.publicUrl}/projects/${projectId}/pulls/1\\?token=`));

    // A follow-up through API 2 is seen at once through API 1, then runs to the end.
    const followUp = await call(second.url, 'POST', `/job/${jobId}/message`, { prompt: 'Mention the verbose flag' });
    expect([followUp.status, followUp.json.status]).toEqual([200, 'active']);
    expect(await statusThrough(first.url, jobId)).toBe('active');
    await expect.poll(() => statusThrough(first.url, jobId), { timeout: 90_000, interval: 100 }).toBe('completed');
    expect(state.proxy).not.toBeNull();
    expect(await statusThrough(state.proxy?.url ?? '', jobId)).toBe('completed');

    supervisor.kill('SIGINT');
    const [code] = await exited;
    expect(code, output).toBe(0);
    expect(output).toMatch(/cluster +\| stopped$/m);
    expect(state.postgres).not.toBeNull();
    const pids = [...state.apis.map((api) => api.pid), ...state.workers.map((worker) => worker.pid), ...(state.postgres === null ? [] : [state.postgres.pid])];
    expect(pids.filter(alive)).toEqual([]);
  } finally {
    if (supervisor.exitCode === null && supervisor.signalCode === null) {
      supervisor.kill('SIGINT');
      await exited;
    }
  }
});
