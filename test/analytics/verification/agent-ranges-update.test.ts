import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { loadRangeFile, refreshRanges, RANGES_FILE_NAME, saveRangeFile } from '../../../src/analytics/verification/range-refresh.js';
import { shippedRangeFile } from '../../../src/analytics/verification/range-catalog.js';
import { VerificationService } from '../../../src/analytics/verification/verification-service.js';
import { verifierFromSnapshot } from '../../../src/analytics/verification/verifier-snapshot.js';
import { runCli } from '../../helpers/run-cli.js';

/** A fake of the operators' range URLs: /<list id>.json in their published format. */
const LISTS: Record<string, string[]> = {
  'openai-gptbot': ['20.171.206.0/24', '2a0a:b1c0:1::/48'],
  'google-googlebot': ['66.249.64.0/27', '66.249.66.0/27', '2001:4860:4801:10::/64'],
  'microsoft-bingbot': ['157.55.39.0/24'],
};

describe('agents update (range refresh) against a local fake server', () => {
  let server: Server;
  let base: string;
  const requests: string[] = [];
  let dataDir: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      const id = /^\/([a-z0-9-]+)\.json$/.exec(request.url ?? '')?.[1];
      if (id === 'perplexity-user') {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"prefixes": [{"ipv4Prefix": "not-a-cidr"}]}');
        return;
      }
      const prefixes = id === undefined ? undefined : LISTS[id];
      if (prefixes === undefined) {
        response.writeHead(404).end();
        return;
      }
      const body = {
        creationTime: '2026-11-24T00:00:00.000000',
        prefixes: prefixes.map((prefix) => (prefix.includes(':') ? { ipv6Prefix: prefix } : { ipv4Prefix: prefix })),
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dataDir = await mkdtemp(join(tmpdir(), 'docwright-ranges-'));
  });
  afterAll(async () => {
    server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('replaces the lists it could fetch, keeps the others, and marks fetched lists complete', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24, 6));
    const { file, lists } = await refreshRanges(shippedRangeFile(), { clock, from: base });
    const byId = new Map(file.sets.map((set) => [set.id, set]));
    expect(byId.get('openai-gptbot')).toMatchObject({ prefixes: LISTS['openai-gptbot'], complete: true, fetchedAt: '2026-11-24T06:00:00.000Z' });
    expect(byId.get('microsoft-bingbot')?.prefixes).toEqual(['157.55.39.0/24']);
    // 404 and a list with a bad prefix: kept as shipped.
    expect(byId.get('apple-applebot')).toMatchObject({ complete: false, prefixes: [] });
    expect(lists.find((list) => list.id === 'perplexity-user')).toMatchObject({ ok: false, error: expect.stringMatching(/not a CIDR/) as unknown });
    expect(file.version).toBe('2026-11-24T06:00:00.000Z');
  });

  it('refuses the operators\u2019 own URLs on loopback: only a configured mirror is trusted', async () => {
    const clock = new ManualClock();
    const shipped = shippedRangeFile();
    const pointed = { ...shipped, sets: shipped.sets.map((set) => ({ ...set, url: `${base}/${set.id}.json` })) };
    const { lists } = await refreshRanges(pointed, { clock });
    expect(lists.every((list) => !list.ok)).toBe(true);
  });

  it('the service refreshes, saves to the data directory, and its verifier (and a worker snapshot) then sees the new ranges', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 24));
    const service = new VerificationService({ clock, dataDir, rangeRefreshMs: null, rangesFrom: base });
    await service.start();
    const gptbot = { category: 'ai-training' as const, agent: 'GPTBot', operator: 'OpenAI' };
    expect(service.verifier().verify({ ...gptbot, ip: '198.51.100.1' })).toBe('claimed');
    await service.refreshRanges();
    expect(service.verifier().verify({ ...gptbot, ip: '198.51.100.1' })).toBe('spoofed');
    expect(service.verifier().verify({ ...gptbot, ip: '20.171.206.7' })).toBe('verified');
    // As posted to a worker thread: a structured clone.
    const worker = verifierFromSnapshot(structuredClone(service.snapshot()), clock);
    expect(worker.verify({ ...gptbot, ip: '2a0a:b1c0:1::9' })).toBe('verified');
    expect(worker.verify({ ...gptbot, ip: '198.51.100.1' })).toBe('spoofed');
    const saved = await loadRangeFile(dataDir);
    expect(saved.sets.find((set) => set.id === 'openai-gptbot')?.complete).toBe(true);
    service.stop();
  });

  it('the server refreshes on its schedule (DOCWRIGHT_AGENT_RANGES_REFRESH_HOURS) and reports each refresh', async () => {
    const refreshes: string[] = [];
    const service = new VerificationService({
      clock: new ManualClock(Date.UTC(2026, 10, 24)),
      dataDir: null,
      rangeRefreshMs: 40,
      rangesFrom: base,
      onRefresh: (result) => refreshes.push(result.file.version),
    });
    const before = requests.length;
    await service.start();
    for (let waited = 0; refreshes.length < 2 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    service.stop();
    expect(refreshes.length).toBeGreaterThanOrEqual(2);
    expect(requests.length - before).toBeGreaterThanOrEqual(2 * shippedRangeFile().sets.length);
  });

  it('a running server picks up agent-ranges.json rewritten by `agents update` (its own refresh off), and ignores an invalid one', async () => {
    const fileDir = await mkdtemp(join(tmpdir(), 'docwright-ranges-watch-'));
    const clock = new ManualClock(Date.UTC(2026, 10, 24));
    const service = new VerificationService({ clock, dataDir: fileDir, rangeRefreshMs: null, rangesFileCheckMs: 20 });
    const changes: string[] = [];
    service.onRangesChanged((ranges) => changes.push(ranges.version));
    const waitFor = async (done: () => boolean): Promise<void> => {
      for (let waited = 0; !done() && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    try {
      await service.start();
      const gptbot = { category: 'ai-training' as const, agent: 'GPTBot', operator: 'OpenAI' };
      expect(service.verifier().verify({ ...gptbot, ip: '198.51.100.1' })).toBe('claimed');
      // What the CLI does: fetch, then save into the data directory the server reads.
      const result = await runCli(['analytics', 'agents', 'update', '--from', base, '--json'], { DOCWRIGHT_DATA_DIR: fileDir });
      expect(result.code).toBe(0);
      await waitFor(() => changes.length > 0);
      expect(changes).toHaveLength(1);
      expect(service.verifier().verify({ ...gptbot, ip: '198.51.100.1' })).toBe('spoofed');
      expect(service.verifier().verify({ ...gptbot, ip: '20.171.206.7' })).toBe('verified');

      // The same ranges saved again (another process's refresh): not a change.
      await saveRangeFile(fileDir, await loadRangeFile(fileDir));
      // A broken file keeps what the server has.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await writeFile(join(fileDir, RANGES_FILE_NAME), '{"sets": [', 'utf8');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(changes).toHaveLength(1);
      expect(service.verifier().verify({ ...gptbot, ip: '20.171.206.7' })).toBe('verified');
    } finally {
      service.stop();
      await rm(fileDir, { recursive: true, force: true });
    }
  });

  it('a service stopped while it still loads its ranges polls nothing afterwards', async () => {
    const fileDir = await mkdtemp(join(tmpdir(), 'docwright-ranges-stopped-'));
    const service = new VerificationService({
      clock: new ManualClock(Date.UTC(2026, 10, 24)),
      dataDir: fileDir,
      rangeRefreshMs: 20,
      rangesFrom: base,
      rangesFileCheckMs: 20,
    });
    const changes: string[] = [];
    service.onRangesChanged((ranges) => changes.push(ranges.version));
    const before = requests.length;
    try {
      const starting = service.start();
      service.stop();
      await starting;
      const { file } = await refreshRanges(shippedRangeFile(), { clock: new ManualClock(Date.UTC(2026, 10, 25)), from: base });
      await saveRangeFile(fileDir, file);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(changes).toEqual([]);
      // Only the refresh above asked the fake server: the stopped service's schedule never ran.
      expect(requests.length - before).toBe(shippedRangeFile().sets.length);
    } finally {
      await rm(fileDir, { recursive: true, force: true });
    }
  });

  it('docwright analytics agents update --from writes agent-ranges.json', async () => {
    const cliDir = await mkdtemp(join(tmpdir(), 'docwright-ranges-cli-'));
    try {
      const result = await runCli(['analytics', 'agents', 'update', '--from', base, '--json'], { DOCWRIGHT_DATA_DIR: cliDir });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const output = JSON.parse(result.stdout) as { lists: Array<{ id: string; ok: boolean }> };
      expect(output.lists.filter((list) => list.ok).map((list) => list.id)).toEqual(['google-googlebot', 'microsoft-bingbot', 'openai-gptbot']);
      const written = JSON.parse(await readFile(join(cliDir, RANGES_FILE_NAME), 'utf8')) as { sets: Array<{ id: string; prefixes: string[] }> };
      expect(written.sets.find((set) => set.id === 'google-googlebot')?.prefixes).toEqual(LISTS['google-googlebot']);
    } finally {
      await rm(cliDir, { recursive: true, force: true });
    }
  });
});
