import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { basicCredentials, type GitAuth } from '../../src/git/git-auth.js';
import { redactSecrets } from '../../src/git/redact.js';
import { runGit } from '../../src/git/run-git.js';
import { prepareWorkspace, remoteBranchExists } from '../../src/git/workspace.js';
import { createBareRepository, fixtureGit, temporaryDirectory, writeFiles } from './git-fixtures.js';
import { startGitHttpServer, type GitHttpServer } from './git-http-server.js';
import { rejection } from '../helpers/rejection.js';

const TOKEN = 'ghs_TestInstallationToken0123456789abcd';
const AUTH: GitAuth = { username: 'x-access-token', password: TOKEN };

let temp: ReturnType<typeof temporaryDirectory>;
let server: GitHttpServer;
let argvLog: string;
let envLog: string;
const savedEnvironment = { ...process.env };

beforeAll(async () => {
  temp = temporaryDirectory();
  createBareRepository(join(temp.path, 'repos', 'acme', 'docs.git'), { 'README.md': '# Acme docs\n' });
  server = await startGitHttpServer({ root: join(temp.path, 'repos'), username: AUTH.username, password: AUTH.password });

  // A `git` earlier on PATH that records every argv and environment it is started with.
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const wrapperDirectory = join(temp.path, 'bin');
  argvLog = join(temp.path, 'argv.log');
  envLog = join(temp.path, 'env.log');
  execFileSync('mkdir', ['-p', wrapperDirectory]);
  writeFileSync(join(wrapperDirectory, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nenv >> '${envLog}'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(wrapperDirectory, 'git'), 0o755);
  writeFileSync(argvLog, '');
  writeFileSync(envLog, '');
  process.env.PATH = `${wrapperDirectory}:${process.env.PATH ?? ''}`;
  // Inherited git variables would redirect or reconfigure every command; they must not leak in.
  process.env.GIT_DIR = join(temp.path, 'not-a-repository');
  process.env.GIT_SSH_COMMAND = 'false';
  process.env.GIT_CONFIG_PARAMETERS = "'remote.origin.url'='https://evil.example/x.git'";
});

afterAll(async () => {
  process.env = savedEnvironment;
  await server.close();
  temp.cleanup();
});

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .map((name) => join(directory, name))
    .filter((path) => statSync(path).isFile());
}

describe('credentials over smart HTTP', () => {
  test('authenticate by header only: never in the remote URL, .git/config, argv or the workspace files', async () => {
    const remoteUrl = `${server.url}/acme/docs.git`;
    const workspace = await prepareWorkspace({ remoteUrl, baseRef: 'main', branch: 'docwright/secure', directory: join(temp.path, 'work'), auth: AUTH });
    writeFiles(workspace.directory, { 'guide.md': '# Guide\n' });
    await workspace.commitAll({ message: 'Add guide' });
    await workspace.push();
    expect(await remoteBranchExists(remoteUrl, 'docwright/secure', AUTH)).toBe(true);

    const bare = join(temp.path, 'repos', 'acme', 'docs.git');
    expect(fixtureGit(bare, 'log', '-1', '--format=%s', 'docwright/secure')).toBe('Add guide');
    const expectedHeader = `Basic ${basicCredentials(AUTH)}`;
    expect(server.requests.length).toBeGreaterThan(3);
    expect(server.requests.every((request) => request.authorization === expectedHeader)).toBe(true);
    expect(server.requests.some((request) => request.url.includes('git-receive-pack'))).toBe(true);

    expect(fixtureGit(workspace.directory, 'config', '--local', 'remote.origin.url')).toBe(remoteUrl);
    const secrets = [TOKEN, basicCredentials(AUTH)];
    for (const path of filesUnder(join(workspace.directory, '.git'))) {
      const content = readFileSync(path, 'latin1');
      for (const secret of secrets) expect(content.includes(secret), path).toBe(false);
    }
    const argv = readFileSync(argvLog, 'utf8');
    expect(argv).toContain('push');
    for (const secret of secrets) expect(argv).not.toContain(secret);

    // The header does travel in the environment, and nothing inherited from GIT_* does.
    const environment = readFileSync(envLog, 'utf8');
    expect(environment).toContain(`GIT_CONFIG_VALUE_`);
    expect(environment).not.toContain('GIT_DIR=');
    expect(environment).not.toContain('GIT_SSH_COMMAND=');
    expect(environment).not.toContain('evil.example');
    for (const pinned of ['GIT_TERMINAL_PROMPT=0', 'GIT_CONFIG_NOSYSTEM=1', 'GIT_CONFIG_GLOBAL=/dev/null', 'LANG=C']) {
      expect(environment).toContain(pinned);
    }
  });

  test('a wrong token fails with git_failed and the message does not reveal it', async () => {
    const wrong: GitAuth = { username: 'x-access-token', password: 'ghs_WrongToken9876543210zyxwvutsrqponm' };
    const error = await rejection(
      prepareWorkspace({
        remoteUrl: `${server.url}/acme/docs.git`,
        baseRef: 'main',
        branch: 'docwright/denied',
        directory: join(temp.path, 'denied'),
        auth: wrong,
      }),
    );
    expect(error.code).toBe('git_failed');
    expect(error.message).toMatch(/ls-remote/);
    expect(error.message).toContain('refused or required credentials');
    expect(error.message).not.toContain(wrong.password);
    expect(error.message).not.toContain(basicCredentials(wrong));
    expect(String(error.stack)).not.toContain(wrong.password);
  });

  test('a remote that never answers is cut off at the timeout', async () => {
    const silent = await startGitHttpServer({ root: temp.path, hang: true });
    try {
      const started = Date.now();
      const error = await rejection(runGit(['ls-remote', '--', `${silent.url}/acme/docs.git`], { cwd: temp.path, timeoutMs: 500, auth: AUTH }));
      expect(error.code).toBe('git_failed');
      expect(error.message).toContain('timed out after 500 ms');
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await silent.close();
    }
  });

  test('stderr that echoes a credential is redacted in the error', async () => {
    // git echoes an unknown revision verbatim, which lets a secret reach stderr on purpose.
    const known = await rejection(runGit(['show', `${TOKEN}-suffix`], { cwd: join(temp.path, 'repos', 'acme', 'docs.git'), auth: AUTH }));
    expect(known.code).toBe('git_failed');
    expect(known.message).toContain('unknown revision');
    expect(known.message).toContain('[REDACTED]-suffix');
    expect(known.message).not.toContain(TOKEN);

    const embedded = await rejection(
      runGit(['show', '--unknown-option=https://someone:hunter2-secret@git.example.com/docs.git'], { cwd: join(temp.path, 'repos', 'acme', 'docs.git') }),
    );
    expect(embedded.message).toContain('https://someone:[REDACTED]@git.example.com/docs.git');
    expect(embedded.message).not.toContain('hunter2-secret');
  });
});

describe('redactSecrets', () => {
  test('masks known secrets and credential-shaped text, and nothing else', () => {
    const text = [
      'fatal: unable to access https://bot:s3cr3t-value@git.example.com/docs.git/',
      'Authorization: Basic eC1hY2Nlc3MtdG9rZW46YWJj',
      'PRIVATE-TOKEN: opaque-value',
      'token ghp_abcdefghijklmnopqrstuvwxyz0123456789 seen',
      'my-known-secret appears here',
      'plain text stays',
    ].join('\n');
    const redacted = redactSecrets(text, ['my-known-secret']);
    for (const secret of ['s3cr3t-value', 'eC1hY2Nlc3MtdG9rZW46YWJj', 'opaque-value', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'my-known-secret']) {
      expect(redacted).not.toContain(secret);
    }
    expect(redacted).toContain('https://bot:[REDACTED]@git.example.com/docs.git/');
    expect(redacted).toContain('plain text stays');
  });
});
