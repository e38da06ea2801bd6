import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';

const jobsPerProject = (environment: Record<string, string>) =>
  loadConfig({ DOCWRIGHT_DATA_DIR: mkdtempSync(join(tmpdir(), 'docwright-cap-')), ...environment }).worker.jobsPerProject;

describe('DOCWRIGHT_JOBS_PER_PROJECT', () => {
  test("defaults to one worker's concurrency, so a one-worker installation keeps its throughput", () => {
    expect(jobsPerProject({})).toBe(2);
    expect(jobsPerProject({ DOCWRIGHT_WORKER_CONCURRENCY: '6' })).toBe(6);
  });

  test('a set cap wins, and one below 1 is refused', () => {
    expect(jobsPerProject({ DOCWRIGHT_WORKER_CONCURRENCY: '6', DOCWRIGHT_JOBS_PER_PROJECT: '1' })).toBe(1);
    expect(() => jobsPerProject({ DOCWRIGHT_JOBS_PER_PROJECT: '0' })).toThrow(/DOCWRIGHT_JOBS_PER_PROJECT/);
  });
});
