import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Git's real smart-HTTP protocol for tests: a loopback HTTP server that checks Basic auth
 * and hands every request to `git http-backend` (CGI), exactly as a forge's git endpoint
 * would. Repositories are the bare repositories under `root`.
 */
export interface GitHttpServerOptions {
  root: string;
  /** Required Basic credentials; omit to allow anonymous access. */
  username?: string;
  password?: string;
  /** Accept connections but never answer: for timeout tests. */
  hang?: boolean;
}

export interface GitHttpRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  status: number;
}

export interface GitHttpServer {
  url: string;
  requests: GitHttpRequest[];
  close(): Promise<void>;
}

export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const requests: GitHttpRequest[] = [];
  const expected = options.username !== undefined ? `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}` : null;

  const server = createServer((request, response) => {
    if (options.hang) return;
    const record: GitHttpRequest = { method: request.method ?? 'GET', url: request.url ?? '/', authorization: request.headers.authorization, status: 0 };
    requests.push(record);
    if (expected !== null && request.headers.authorization !== expected) {
      record.status = 401;
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
      response.end('Authentication required\n');
      return;
    }
    record.status = 200;
    runBackend(options.root, request, response, record);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function runBackend(root: string, request: IncomingMessage, response: ServerResponse, record: GitHttpRequest): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    // http-backend only accepts pushes from an authenticated user.
    REMOTE_USER: 'tester',
    REMOTE_ADDR: '127.0.0.1',
    REQUEST_METHOD: request.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ''),
    CONTENT_TYPE: request.headers['content-type'] ?? '',
  };
  if (request.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = String(request.headers['content-encoding']);
  if (request.headers['git-protocol']) env.GIT_PROTOCOL = String(request.headers['git-protocol']);
  if (request.headers['content-length']) env.CONTENT_LENGTH = String(request.headers['content-length']);

  const backend = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  request.pipe(backend.stdin);
  let buffered = Buffer.alloc(0);
  let headersSent = false;
  backend.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      response.write(chunk);
      return;
    }
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf('\r\n\r\n');
    if (end === -1) return;
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of buffered.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    record.status = status;
    response.writeHead(status, headers);
    headersSent = true;
    response.write(buffered.subarray(end + 4));
  });
  backend.on('close', () => {
    if (!headersSent) response.writeHead(500);
    response.end();
  });
}
