import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { ClusterArgumentError, parseClusterArguments } from '../../scripts/cluster/cluster-arguments.js';
import { prefixedOutput, wantsColour } from '../../scripts/cluster/prefixed-output.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../scripts/cluster/round-robin-proxy.js';
import { freePort } from '../helpers/free-port.js';

describe('npm run cluster: arguments', () => {
  test('defaults, counts, --no-proxy and --dir', () => {
    expect(parseClusterArguments([])).toEqual({ help: false, api: 2, workers: 2, port: 3000, proxy: true, directory: undefined });
    expect(parseClusterArguments(['--api', '3', '--workers', '0', '--port', '0', '--no-proxy', '--dir', '/tmp/c'])).toEqual({
      help: false,
      api: 3,
      workers: 0,
      port: 0,
      proxy: false,
      directory: '/tmp/c',
    });
    expect(parseClusterArguments(['-h']).help).toBe(true);
  });

  test.each([['--api', '0'], ['--api', 'two'], ['--workers', '-1'], ['--workers', '17'], ['--port', '70000'], ['--bogus']])('refuses %s %s', (...argv) => {
    expect(() => parseClusterArguments(argv)).toThrow(ClusterArgumentError);
  });
});

describe('npm run cluster: output', () => {
  test('every line after its name, the column as wide as the longest name; colour only when asked', () => {
    let text = '';
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        text += chunk.toString();
        done();
      },
    });
    const output = prefixedOutput(sink, false);
    output.alignTo(['api-1', 'worker-10']);
    const stream = new PassThrough();
    output.follow('api-1', stream);
    output.say('ready');
    stream.end('first\nsecond\n');
    return new Promise<void>((resolve) => {
      stream.on('end', () =>
        setImmediate(() => {
          expect(text).toBe('cluster   | ready\napi-1     | first\napi-1     | second\n');
          resolve();
        }),
      );
    });
  });

  test('wantsColour: a terminal, unless NO_COLOR; FORCE_COLOR wins', () => {
    expect(wantsColour({ isTTY: true }, {})).toBe(true);
    expect(wantsColour({ isTTY: false }, {})).toBe(false);
    expect(wantsColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
  });
});

describe('npm run cluster: round-robin proxy', () => {
  const servers: Server[] = [];
  let proxy: RoundRobinProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    for (const server of servers.splice(0)) server.close();
  });

  async function backend(name: string): Promise<number> {
    const server = createServer((_request, response) => response.end(name));
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  }

  // A connection of its own per request, so each request is a new connection for the proxy.
  const ask = async (url: string): Promise<string> => (await fetch(url, { headers: { connection: 'close' } })).text();

  test('hands new connections to each API process in turn, and skips one that refuses', async () => {
    const ports = [await backend('a'), await freePort(), await backend('c')];
    proxy = await startRoundRobinProxy({ host: '127.0.0.1', port: 0, targets: ports.map((port) => ({ host: '127.0.0.1', port })) });
    const answers: string[] = [];
    for (let request = 0; request < 4; request++) answers.push(await ask(proxy.url));
    // The closed port in the middle is skipped: its turn goes to the next process.
    expect(answers).toEqual(['a', 'c', 'a', 'c']);
  });
});
