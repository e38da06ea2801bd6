import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { resolveInstanceSecret } from '../../src/config/secret-file.js';

const MODULE = fileURLToPath(new URL('../../src/config/secret-file.ts', import.meta.url));

/** A fresh process that resolves the secret of `dataDir` as soon as it has started and prints it. */
function resolveInChild(dataDir: string): Promise<string> {
  const script = `import { resolveInstanceSecret } from ${JSON.stringify(MODULE)}; process.stdout.write(resolveInstanceSecret(${JSON.stringify(dataDir)}, undefined));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`exit ${String(code)}: ${stderr}`))));
  });
}

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
    for (let round = 0; round < 3; round++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'docwright-secret-'));
      const secrets = await Promise.all(Array.from({ length: 6 }, () => resolveInChild(dataDir)));
      expect(new Set(secrets).size).toBe(1);
      expect(secrets[0]!.length).toBeGreaterThanOrEqual(32);
      expect(readdirSync(dataDir)).toEqual(['secret']);
    }
  }, 60_000);
});
