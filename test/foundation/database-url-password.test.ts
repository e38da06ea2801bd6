import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/app/logger.js';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { maskUrlPasswords, urlPasswordSpellings, withoutUrlPassword } from '../../src/core/url-password.js';
import { openRuntime } from '../../src/server/open-runtime.js';
import { runCli } from '../helpers/run-cli.js';

/**
 * DOCWRIGHT_DATABASE_URL carries the database password. Whatever goes wrong with it (a
 * typo, an unreachable or misspelt server), no message or log line shows the password.
 */
const PASSWORD = 'hunter2-secret';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'docwright-dburl-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const environment = (databaseUrl: string): Record<string, string> => ({
  DOCWRIGHT_DATA_DIR: dataDir,
  DOCWRIGHT_SECRET: 's'.repeat(40),
  DOCWRIGHT_DATABASE_URL: databaseUrl,
});

describe('masking', () => {
  test('a URL password is masked whole, also with unencoded "@" or "/" in it, and the rest is kept', () => {
    expect(maskUrlPasswords(`mysql://docwright:${PASSWORD}@db:3306/x`)).toBe('mysql://docwright:****@db:3306/x');
    expect(maskUrlPasswords('postgres://u:p@ss/w0rd@db/x and http://a:b@c/')).toBe('postgres://u:****@db/x and http://a:****@c/');
    expect(maskUrlPasswords('{"url":"postgres://u:pw@db/x","mail":"a@b.example"}')).toBe('{"url":"postgres://u:****@db/x","mail":"a@b.example"}');
    expect(maskUrlPasswords('postgres://db/x postgres://user@db/x')).toBe('postgres://db/x postgres://user@db/x');
  });

  test('every spelling of a known password leaves an error, whose type and code stay', () => {
    const url = `postgres://docwright:${encodeURIComponent('hunter2 s€cret/@')}@db/x`;
    expect(urlPasswordSpellings(url)).toContain('hunter2 s€cret/@');
    const error = Object.assign(new TypeError('failed with hunter2 s€cret/@ and hunter2%20s%E2%82%ACcret%2F%40'), { code: 'X' });
    const cleaned = withoutUrlPassword(error, url);
    expect(cleaned).toBe(error);
    expect(cleaned.message).toBe('failed with **** and ****');
    expect(cleaned.stack).not.toContain('hunter2');
  });

  test('logged errors lose URL passwords', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    createLogger({ level: 'info', destination }).error({ err: new Error(`cannot reach postgres://docwright:${PASSWORD}@db/x`) }, 'oops');
    expect(lines.join('')).toContain('postgres://docwright:****@db/x');
    expect(lines.join('')).not.toContain(PASSWORD);
  });
});

describe('configuration errors', () => {
  test('an invalid DOCWRIGHT_DATABASE_URL is named and shown with its password masked', () => {
    let error: unknown;
    try {
      loadConfig(environment(`mysql://docwright:${PASSWORD}@db.example:3306/docwright`));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain(PASSWORD);
    expect((error as Error).message).toContain('DOCWRIGHT_DATABASE_URL');
    expect((error as Error).message).toContain('mysql://docwright:****@db.example:3306/docwright');
  });

  test('the CLI stops with the masked URL', async () => {
    const result = await runCli(['migrate'], environment(`mysql://docwright:${PASSWORD}@db.example/docwright`));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DOCWRIGHT_DATABASE_URL');
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });
});

describe('connection failures', () => {
  const unreachable = `postgres://docwright:${PASSWORD}@127.0.0.1:1/docwright`;
  const malformed = `postgresql://docwright:${PASSWORD}@localhost:99999/docwright`;

  test.each([unreachable, malformed])('opening the runtime on %s fails without the password', async (url) => {
    const error = await openRuntime(loadConfig(environment(url))).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    expect(`${(error as Error).message}\n${(error as Error).stack ?? ''}`).not.toContain(PASSWORD);
  });

  test.each([
    ['migrate', unreachable],
    ['serve', unreachable],
    ['worker', malformed],
  ])('`docwright %s` on a bad database says so without the password, with every log line on', async (command, url) => {
    const result = await runCli([command], { ...environment(url), DOCWRIGHT_LOG_LEVEL: 'trace', PORT: '0' });
    expect(result.code).not.toBe(0);
    expect(result.stderr.length).toBeGreaterThan(0);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });
});
