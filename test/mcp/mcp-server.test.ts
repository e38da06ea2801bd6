import { afterEach, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { BACKENDS } from '../helpers/test-database.js';
import { CLI } from '../helpers/run-cli.js';
import { scriptedToolCalls, type FakeModelScript } from '../fakes/fake-model-server.js';
import { buildSignedInApp, signedIn } from '../helpers/signed-in-app.js';

const FINAL_TEXT = 'Added the MCP guide.';
const docsScript = scriptedToolCalls([{ name: 'write_file', arguments: { path: 'guides/mcp.mdx', content: '# MCP\n\nConnect an MCP client.\n' } }], FINAL_TEXT);

interface ToolAnswer {
  isError: boolean;
  text: string;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  return { isError: result.isError === true, text: content.map((part) => part.text ?? '').join('') };
}

async function json(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await call(client, name, args);
  if (answer.isError) throw new Error(`${name} failed: ${answer.text}`);
  return JSON.parse(answer.text) as Record<string, unknown>;
}

/** Creates a job through MCP and polls it through MCP until it settles. */
async function createAndAwait(client: Client): Promise<{ job: Record<string, unknown>; latestTurn: Record<string, unknown> }> {
  const created = await json(client, 'create_job', { prompt: 'Add a guide about MCP.' });
  expect(created.status).toBe('active');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = (await json(client, 'get_job', { jobId: created.id })) as { job: Record<string, unknown>; latestTurn: Record<string, unknown> };
    if (answer.job.status !== 'active') return answer;
    if (Date.now() > deadline) throw new Error('job still active');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const hit = (path: string, userAgent: string, visitorId: string) => ({ path, userAgent, visitorId });
const CHATGPT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

/** "hang": a model call that only an abort ends within the test's time; anything else edits a page. */
const script: FakeModelScript = (request, callIndex) =>
  request.lastUserText.includes('hang') ? { text: 'never delivered', delayMs: 120_000 } : docsScript(request, callIndex);

describe.each(BACKENDS)('MCP (%s)', (backend) => {
  let h: JobHarness;
  let url: string;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await h?.close();
  });

  async function start(): Promise<void> {
    h = await createJobHarness(backend, script);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const address = h.app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  function httpClient(key: string): { client: Client; transport: StreamableHTTPClientTransport } {
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
    return { client: new Client({ name: 'docwright-test', version: '1.0.0' }), transport };
  }

  /** A running server, and the SDK's client connected to its /mcp with the project's admin key. */
  async function startAndConnect(): Promise<Client> {
    await start();
    const connection = httpClient(h.key);
    await connection.client.connect(connection.transport);
    return connection.client;
  }

  test('Streamable HTTP: an admin key lists the tools, creates a job and reads its result; the job is its own project’s', async () => {
    client = await startAndConnect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'cancel_job',
      'create_job',
      'get_agent_traffic',
      'get_job',
      'get_visitors',
      'list_jobs',
      'send_message',
    ]);

    const { job, latestTurn } = await createAndAwait(client);
    expect(job.status).toBe('completed');
    expect(job.prLink).toMatch(/^http:\/\/docs\.test\//);
    expect(latestTurn).toMatchObject({ status: 'completed', finalMessage: FINAL_TEXT, filesChanged: ['guides/mcp.mdx'] });
    // The same job through the HTTP API of the key's project.
    const polled = await h.request('GET', `/v2/agent/${h.projectId}/job/${String(job.id)}`);
    expect(polled.body.status).toBe('completed');
    const listed = await json(client, 'list_jobs', { status: 'completed' });
    expect((listed.jobs as Array<{ id: string }>).map((entry) => entry.id)).toEqual([job.id]);

    // A follow-up through MCP re-activates the job.
    const followed = await json(client, 'send_message', { jobId: job.id, prompt: 'Also mention Cursor.' });
    expect(followed.status).toBe('active');
  });

  test('Streamable HTTP: no key, a wrong key, an ingest key and a signed-in browser are refused', async () => {
    await start();
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: initialize,
      });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await anonymous.json()) as { code: string }).code).toBe('unauthorized');
    expect((await post({ authorization: 'Bearer dw_admin_not-a-real-key' })).status).toBe(401);
    const ingest = await h.services.keys.create({ projectId: h.projectId, scope: 'ingest' });
    expect((await post({ authorization: `Bearer ${ingest.key}` })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${h.key}` })).status).toBe(200);
    // A dashboard session opens the API, not /mcp: an MCP client holds a key.
    const browserApp = await buildSignedInApp(h.services);
    try {
      const browser = await browserApp.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          ...signedIn({ id: 'u1', email: 'admin@example.com', role: 'admin' }),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: initialize,
      });
      expect(browser.statusCode).toBe(401);
    } finally {
      await browserApp.close();
    }

    // The SDK's client cannot connect without a key.
    const unauthenticated = new Client({ name: 'docwright-test', version: '1.0.0' });
    await expect(unauthenticated.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))).rejects.toThrow();
    // GET (a server-initiated stream) is not offered: 405 with Allow.
    const stream = await fetch(`${url}/mcp`, { headers: { authorization: `Bearer ${h.key}`, accept: 'text/event-stream' } });
    expect(stream.status).toBe(405);
    expect(stream.headers.get('allow')).toBe('POST');
  });

  test('bad tool input and refused calls are tool errors, and the key never reaches an answer', async () => {
    client = await startAndConnect();
    const empty = await call(client, 'create_job', { prompt: '' });
    expect(empty.isError).toBe(true);
    expect(empty.text).toMatch(/prompt/);
    const traversal = await call(client, 'get_job', { jobId: '../../v1/analytics' });
    expect(traversal.isError).toBe(true);
    const unknown = await call(client, 'get_job', { jobId: 'job_doesnotexist' });
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown.text).toMatch(/^not_found: /);
    const badRange = await call(client, 'get_visitors', { dateFrom: '2026-06-02', dateTo: '2026-06-01' });
    expect(badRange.isError).toBe(true);
    expect(badRange.text).toMatch(/^validation_failed: /);
    const tooMany = await call(client, 'list_jobs', { limit: 500 });
    expect(tooMany.isError).toBe(true);
    // create_job takes the API's controls, and the API's rules refuse what they refuse.
    const draftMerge = await call(client, 'create_job', { prompt: 'Add a page.', draft: true, autoMerge: true });
    expect(draftMerge.isError).toBe(true);
    expect(draftMerge.text).toMatch(/^validation_failed: [^]*autoMerge: cannot be combined with draft/);
    const labelled = await call(client, 'create_job', { prompt: 'Add a page.', labels: ['docs'] });
    expect(labelled.text).toMatch(/^pull_request_options_unsupported: /);
    const named = await json(client, 'create_job', { prompt: 'hang, please', branchName: 'mcp-guide' });
    expect(named.status).toBe('active');
    const taken = await call(client, 'create_job', { prompt: 'Add a page.', branchName: 'mcp-guide' });
    expect(taken).toMatchObject({ isError: true, text: expect.stringMatching(/^branch_taken: /) as unknown });
    await json(client, 'cancel_job', { jobId: named.id });
    for (const answer of [empty, traversal, unknown, badRange, tooMany, draftMerge, labelled, taken]) expect(answer.text).not.toContain(h.key);
  });

  test('cancel_job stops a job during a slow model call; a second cancel is a tool error', async () => {
    client = await startAndConnect();
    const created = await json(client, 'create_job', { prompt: 'hang, please' });
    const deadline = Date.now() + 15_000;
    while (h.model.requests.length === 0) {
      if (Date.now() > deadline) throw new Error('the model was never called');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const cancelled = await json(client, 'cancel_job', { jobId: created.id });
    expect(cancelled).toMatchObject({ id: created.id, status: 'failed', error: { code: 'cancelled' } });
    const again = await call(client, 'cancel_job', { jobId: created.id });
    expect(again.isError).toBe(true);
    expect(again.text).toMatch(/^job_not_active: /);
    const read = (await json(client, 'get_job', { jobId: created.id })) as { job: Record<string, unknown>; latestTurn: Record<string, unknown> };
    expect(read.job).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    expect(read.latestTurn.status).toBe('cancelled');
  });

  test('stdio: `docwright mcp` creates a job, reads its result and the project analytics over the HTTP API', async () => {
    await start();
    const ingested = await h.request('POST', `/v1/analytics/${h.projectId}/events`, {
      events: [hit('/guides/a', CHATGPT, 'v1'), hit('/guides/a', BROWSER, 'v2'), hit('/guides/b', BROWSER, 'v3')],
    });
    expect(ingested.body.accepted).toBe(3);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DOCWRIGHT_URL: url, DOCWRIGHT_API_KEY: h.key, DOCWRIGHT_PROJECT: h.projectId },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    client = new Client({ name: 'docwright-test', version: '1.0.0' });
    await client.connect(transport);

    const { job, latestTurn } = await createAndAwait(client);
    expect(job.status).toBe('completed');
    expect(latestTurn.finalMessage).toBe(FINAL_TEXT);

    const visitors = await json(client, 'get_visitors', {});
    expect(visitors).toEqual({
      totals: { human: 2, ai: 1, total: 3 },
      visitors: [
        { path: '/guides/a', human: 1, ai: 1, total: 2 },
        { path: '/guides/b', human: 1, ai: 0, total: 1 },
      ],
      hasMore: false,
    });
    const traffic = (await json(client, 'get_agent_traffic', { limit: 1 })) as {
      classes: Array<{ class: string; hits: number }>;
      agents: Array<{ agent: string }>;
    };
    expect(traffic.classes.find((entry) => entry.class === 'ai')?.hits).toBe(1);
    expect(traffic.agents.map((entry) => entry.agent)).toEqual(['ChatGPT']);

    const bad = await call(client, 'send_message', { jobId: job.id });
    expect(bad.isError).toBe(true);
    expect(stderr).not.toContain(h.key);
  });
});
