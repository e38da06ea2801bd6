import { afterAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findExportedFunction } from '../../bench/lib/find-exported-function.js';

const root = mkdtempSync(join(tmpdir(), 'docwright-find-runner-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('findExportedFunction', () => {
  test('finds the runner in NAME-*.ts first, then DIR/*.ts, and never imports files that do not export it', async () => {
    mkdirSync(join(root, 'jobs'));
    mkdirSync(join(root, '.data', 'jobs'), { recursive: true });
    // Importing this file would throw: it proves files without the export are only read.
    writeFileSync(join(root, 'jobs-server-entry.ts'), "throw new Error('must not be imported');\n");
    writeFileSync(join(root, 'jobs', 'suite.ts'), "export async function runJobsBenchmarks() { return 'from jobs/'; }\n");
    writeFileSync(join(root, '.data', 'jobs', 'x.ts'), "export async function runJobsBenchmarks() { return 'from .data'; }\n");
    const nested = await findExportedFunction<() => Promise<string>>(root, ['jobs-*.ts', 'jobs/*.ts'], 'runJobsBenchmarks');
    expect(await nested?.()).toBe('from jobs/');

    writeFileSync(join(root, 'jobs-benchmarks.ts'), 'async function runJobsBenchmarks() { return "top"; }\nexport { runJobsBenchmarks };\n');
    const top = await findExportedFunction<() => Promise<string>>(root, ['jobs-*.ts', 'jobs/*.ts'], 'runJobsBenchmarks');
    expect(await top?.()).toBe('top');
    expect(await findExportedFunction(root, ['import-*.ts', 'missing/*.ts'], 'runJobsBenchmarks')).toBeUndefined();
  });
});
