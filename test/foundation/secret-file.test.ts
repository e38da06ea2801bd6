import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { resolveInstanceSecret } from '../../src/config/secret-file.js';

const MODULE = fileURLToPath(new URL('../../src/config/secret-file.ts', import.meta.url));

/**
 * A fresh process that resolves the secret of each of `dataDirs`, one after another, and
 * prints them one per line. Each resolution starts at `startAt + index * STEP_MS`, so
 * every process races the others on the same directory at the same moment.
 */
function resolveInChild(dataDirs: string[], startAt: number): Promise<string[]> {
  const script = `import { resolveInstanceSecret } from ${JSON.stringify(MODULE)};
    const dirs = ${JSON.stringify(dataDirs)};
    const secrets = [];
    for (const [index, dir] of dirs.entries()) {
      while (Date.now() < ${startAt} + index * ${STEP_MS}) {}
      secrets.push(resolveInstanceSecret(dir, undefined));
    }
    process.stdout.write(secrets.join('\\n'));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(stdout.split('\n')) : reject(new Error(`exit ${String(code)}: ${stderr}`))));
  });
}

const STEP_MS = 5;

describe('resolveInstanceSecret', () => {
  test('the configured secret wins and no file is written', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'docwright-secret-'));
    expect(resolveInstanceSecret(dataDir, 'configured-secret-configured-secret')).toBe('configured-secret-configured-secret');
    expect(readdirSync(dataDir)).toEqual([]);
  });

  test('a generated secret is stored once and read back by later calls', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'docwright-secret-'));
    const first = resolveInstanceSecret(dataDir, undefined);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(resolveInstanceSecret(dataDir, undefined)).toBe(first);
    expect(readdirSync(dataDir)).toEqual(['secret']);
  });

  // Before the secret was linked into place whole, a process could read the empty file another had just created.
  test('processes starting together on a new data dir all get the same full secret', async () => {
    const root = mkdtempSync(join(tmpdir(), 'docwright-secret-'));
    const dataDirs = Array.from({ length: 300 }, (_, index) => join(root, String(index)));
    // Far enough ahead for every child to have loaded the module.
    const startAt = Date.now() + 4_000;
    const children = await Promise.all(Array.from({ length: 4 }, () => resolveInChild(dataDirs, startAt)));
    for (const [index, dataDir] of dataDirs.entries()) {
      const secrets = children.map((secretsOfChild) => secretsOfChild[index]);
      expect(new Set(secrets).size, dataDir).toBe(1);
      expect(secrets[0]!.length).toBeGreaterThanOrEqual(32);
      expect(readdirSync(dataDir)).toEqual(['secret']);
    }
  }, 60_000);
});
