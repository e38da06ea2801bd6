import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { StreamSlots } from '../../src/jobs/stream-slots.js';
import { BACKENDS } from '../helpers/test-database.js';
import { startListeningTestApp, type ListeningTestApp } from '../helpers/listening-test-app.js';

interface OpenStream {
  status: number;
  body: Promise<string>;
  request: ClientRequest;
  response: IncomingMessage;
}

/** Opens the job's event stream on its own connection and resolves once the answer's head is in. */
function openStream(url: string, key: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      const body = new Promise<string>((done) => {
        response.on('end', () => done(text));
        response.on('close', () => done(text));
      });
      resolve({ status: response.statusCode ?? 0, body, request, response });
    });
    request.on('error', reject);
    request.end();
  });
}

describe('event stream slots', () => {
  test('per key and per process, each given back once', () => {
    const slots = new StreamSlots({ perProcess: 3, perKey: 2 });
    const a1 = slots.acquire('a');
    slots.acquire('a');
    expect(() => slots.acquire('a')).toThrow(expect.objectContaining({ status: 429, code: 'too_many_streams_for_key' }));
    slots.acquire('b');
    expect(() => slots.acquire('c')).toThrow(expect.objectContaining({ status: 503, code: 'too_many_streams' }));
    a1();
    a1();
    expect(slots.open()).toBe(2);
    expect(slots.open('a')).toBe(1);
    slots.acquire('c');
    expect(slots.open()).toBe(3);
  });
});

describe.each(BACKENDS)('event streams per API key [%s]', (dialect) => {
  let server: ListeningTestApp;
  const streams: OpenStream[] = [];
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.request.destroy();
    await server?.close();
  });

  test('a key may hold 20 open streams; the 21st is a 429 problem; other keys are unaffected; closing frees a slot', async () => {
    server = await startListeningTestApp(dialect);
    const other = (await server.testApp.services.keys.create({ projectId: server.projectId, scope: 'admin' })).key;
    // No worker runs in the test app: the job stays active, so its streams stay open.
    const created = await fetch(`${server.url}/v2/agent/${server.projectId}/job`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Fix the typo' }),
    });
    expect(created.status).toBe(201);
    const url = `${server.url}/v2/agent/${server.projectId}/job/${((await created.json()) as { id: string }).id}/events`;

    for (let index = 0; index < 20; index++) {
      const stream = await openStream(url, server.apiKey);
      streams.push(stream);
      expect(stream.status, `stream ${index + 1}`).toBe(200);
    }
    const refused = await openStream(url, server.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(await refused.body)).toMatchObject({ status: 429, code: 'too_many_streams_for_key' });

    const otherKey = await openStream(url, other);
    streams.push(otherKey);
    expect(otherKey.status).toBe(200);

    // A client that goes away gives its slot back.
    streams.shift()!.request.destroy();
    const deadline = Date.now() + 10_000;
    let again = await openStream(url, server.apiKey);
    while (again.status === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await openStream(url, server.apiKey);
    }
    streams.push(again);
    expect(again.status).toBe(200);
  });
});
