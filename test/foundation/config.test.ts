import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, loadClientConfig } from '../../src/config/load-config.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'docwright-config-'));

describe('configuration', () => {
  test('defaults match decisions.md', () => {
    const directory = dataDir();
    const config = loadConfig({ DOCWRIGHT_DATA_DIR: directory });
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.publicUrl).toBe('http://127.0.0.1:3000');
    expect(config.models.defaultModel).toBe('anthropic:claude-sonnet-5-5');
    expect(config.bodyLimit).toBe(1_048_576);
    expect(config.rateLimitPerHour).toBe(100);
    expect(config.budgets).toEqual({ maxSteps: 50, maxTokens: 2_000_000, maxDurationMs: 15 * 60_000 });
    expect(config.worker.repositoryInstructionsMaxBytes).toBe(32_768);
  });

  test('the repository instructions cap: 0 turns it off, above 256 KiB is refused', () => {
    const read = (value: string): number =>
      loadConfig({ DOCWRIGHT_DATA_DIR: dataDir(), DOCWRIGHT_REPOSITORY_INSTRUCTIONS_MAX_BYTES: value }).worker.repositoryInstructionsMaxBytes;
    expect(read('0')).toBe(0);
    expect(read('262144')).toBe(262_144);
    expect(() => read('262145')).toThrow(/DOCWRIGHT_REPOSITORY_INSTRUCTIONS_MAX_BYTES/);
    expect(() => read('-1')).toThrow(/DOCWRIGHT_REPOSITORY_INSTRUCTIONS_MAX_BYTES/);
  });

  test('the agent ranges mirror: an http(s) URL, unset by default, anything else refused', () => {
    const read = (value?: string): string | null =>
      loadConfig({ DOCWRIGHT_DATA_DIR: dataDir(), ...(value === undefined ? {} : { DOCWRIGHT_AGENT_RANGES_FROM: value }) }).analytics.verification.rangesFrom;
    expect(read()).toBeNull();
    expect(read('')).toBeNull();
    expect(read('http://10.0.0.2/agent-ranges')).toBe('http://10.0.0.2/agent-ranges');
    expect(() => read('ftp://mirror/agent-ranges')).toThrow(/DOCWRIGHT_AGENT_RANGES_FROM/);
    expect(() => read('mirror')).toThrow(/DOCWRIGHT_AGENT_RANGES_FROM/);
  });

  test('the secret is generated once into the data dir, private, and reused', () => {
    const directory = dataDir();
    const first = loadConfig({ DOCWRIGHT_DATA_DIR: directory }).secret;
    const second = loadConfig({ DOCWRIGHT_DATA_DIR: directory }).secret;
    expect(first).toBe(second);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(join(directory, 'secret'), 'utf8').trim()).toBe(first);
    expect(statSync(join(directory, 'secret')).mode & 0o077).toBe(0);
    expect(loadConfig({ DOCWRIGHT_DATA_DIR: directory, DOCWRIGHT_SECRET: 'y'.repeat(40) }).secret).toBe('y'.repeat(40));
  });

  test('invalid settings stop start-up, naming each variable, without echoing secrets', () => {
    let error: unknown;
    try {
      loadConfig({
        DOCWRIGHT_DATA_DIR: dataDir(),
        PORT: 'eighty',
        DOCWRIGHT_DATABASE_URL: 'mysql://x',
        DOCWRIGHT_MODEL: 'gpt-4',
        DOCWRIGHT_SECRET: 'short-secret-value',
        DOCWRIGHT_WORKER_CONCURRENCY: '0',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'DOCWRIGHT_DATABASE_URL', 'DOCWRIGHT_MODEL', 'DOCWRIGHT_SECRET', 'DOCWRIGHT_WORKER_CONCURRENCY'])
      expect(message).toContain(name);
    expect(message).toContain('"eighty"');
    expect(message).not.toContain('short-secret-value');
  });

  test('public URL and PostgreSQL URL are taken as given', () => {
    const config = loadConfig({
      DOCWRIGHT_DATA_DIR: dataDir(),
      DOCWRIGHT_PUBLIC_URL: 'https://docs.example.com/',
      DOCWRIGHT_DATABASE_URL: 'postgres://u:p@db:5432/docwright',
    });
    expect(config.publicUrl).toBe('https://docs.example.com');
    expect(config.databaseUrl).toBe('postgres://u:p@db:5432/docwright');
  });

  test('client settings', () => {
    expect(loadClientConfig({})).toEqual({ url: 'http://127.0.0.1:3000', apiKey: undefined });
    expect(loadClientConfig({ DOCWRIGHT_URL: 'http://h:1/', DOCWRIGHT_API_KEY: ' k ' })).toEqual({ url: 'http://h:1', apiKey: 'k' });
    expect(() => loadClientConfig({ DOCWRIGHT_URL: 'not a url' })).toThrow(/DOCWRIGHT_URL/);
  });
});
