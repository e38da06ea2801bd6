import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { createVerificationService } from '../../../src/analytics/verification/create-verification-service.js';
import { KeyDirectoryCache } from '../../../src/analytics/verification/key-directory-cache.js';
import type { VerificationService } from '../../../src/analytics/verification/verification-service.js';
import { startFakeKeyDirectory, TestSigner, type FakeKeyDirectory } from '../../fakes/web-bot-auth-signer.js';
import { testConfig } from '../../helpers/test-app.js';

/**
 * Key directories are named by a request header, so one project's hits (anyone who can
 * send its beacon) must not take every fetch slot, every queue place or every cache entry,
 * nor fill the log.
 */
describe('key directory budgets per project', () => {
  const signer = new TestSigner();
  let server: FakeKeyDirectory;
  /** Host names in the order their fetches started (the resolver is the first step of a fetch). */
  let started: string[];
  const toLoopback = (host: string): Promise<Array<{ address: string; family: number }>> => {
    started.push(host);
    return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
  };
  beforeAll(async () => {
    server = await startFakeKeyDirectory([signer]);
  });
  afterAll(() => server.close());
  afterEach(() => {
    server.reply.delayMs = 0;
  });
  const agent = (name: string): string => `http://${name}.example:${server.port}`;
  const cache = (clock: ManualClock, extra: Partial<ConstructorParameters<typeof KeyDirectoryCache>[0]> = {}): KeyDirectoryCache => {
    started = [];
    return new KeyDirectoryCache({ clock, allowLoopback: true, resolve: toLoopback, ...extra });
  };

  it("one project's flood gets 2 fetches running and 8 waiting; another project's directory is fetched at once", async () => {
    const keys = cache(new ManualClock(Date.UTC(2026, 11, 2)));
    server.reply.delayMs = 150;
    for (let index = 0; index < 30; index++) keys.request(agent(`flood${index}`), 'project-a');
    keys.request(agent('signer'), 'project-b');
    await keys.settled();
    // B's fetch started third, beside A's two, not behind A's queue.
    expect(started.indexOf('signer.example')).toBe(2);
    expect(started.filter((host) => host.startsWith('flood'))).toHaveLength(10);
    const state = keys.directory(agent('signer'));
    expect(state.state === 'ready' && state.key(signer.keyId) !== null).toBe(true);
    // A dropped request was never remembered: the next hit that names it is fetched.
    expect(keys.directory(agent('flood29')).state).toBe('unknown');
    keys.request(agent('flood29'), 'project-a');
    await keys.settled();
    expect(keys.directory(agent('flood29')).state).toBe('ready');
  });

  it("one project's directories evict only its own, never another project's keys", async () => {
    const keys = cache(new ManualClock(Date.UTC(2026, 11, 2)), { maxDirectories: 6, maxDirectoriesPerProject: 3 });
    keys.request(agent('signer'), 'project-b');
    keys.request(agent('shared'), 'project-b');
    await keys.settled();
    // A asks for the shared directory too, then for eight more of its own.
    keys.request(agent('shared'), 'project-a');
    for (let index = 0; index < 8; index++) {
      keys.request(agent(`flood${index}`), 'project-a');
      await keys.settled();
    }
    expect(keys.directory(agent('signer')).state).toBe('ready');
    expect(keys.directory(agent('shared')).state).toBe('ready');
    const cached = keys.snapshot().map((entry) => new URL(entry.agentUrl).hostname);
    expect(cached.filter((host) => host.startsWith('flood')).sort()).toEqual(['flood5.example', 'flood6.example', 'flood7.example']);
    expect(cached).toHaveLength(5);
  });
});

describe('a refused key directory in the log', () => {
  let service: VerificationService | null = null;
  afterEach(() => service?.stop());

  it('is one line without a stack, at most once per host a minute, with the count of the ones left out', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 2));
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const log = { info: () => {}, warn: (fields: object, message: string) => lines.push({ fields: fields as Record<string, unknown>, message }) };
    const config = testConfig(mkdtempSync(join(tmpdir(), 'docwright-directory-log-')));
    // Every name resolves into the operator's network: each fetch is refused.
    service = createVerificationService(config, clock, log, { resolve: () => Promise.resolve([{ address: '10.0.0.7', family: 4 }]) });
    await service!.settled();
    const refuse = async (agentUrl: string): Promise<void> => {
      service!.keys.request(agentUrl, 'project-a');
      await service!.settled();
    };
    for (let index = 0; index < 5; index++) await refuse(`https://internal.example/agent-${index}`);
    const warned = (): typeof lines => lines.filter((line) => line.message === 'key directory could not be fetched');
    expect(warned()).toEqual([
      {
        message: 'key directory could not be fetched',
        fields: { host: 'internal.example', reason: 'internal.example resolves to a private, loopback or link-local address', suppressed: 0 },
      },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/stack|\bat .*\.ts:\d+/);

    clock.advance(60_000);
    await refuse('https://internal.example/agent-later');
    expect(warned()[1]!.fields).toEqual({ host: 'internal.example', reason: expect.stringContaining('private') as string, suppressed: 4 });

    // Many hosts (a name per hit under one domain): 20 lines a minute, the rest counted.
    for (let index = 0; index < 25; index++) await refuse(`https://h${index}.attacker.example`);
    expect(warned()).toHaveLength(2 + 19);
    clock.advance(60_000);
    await refuse('https://next.attacker.example');
    expect(warned().at(-1)!.fields).toMatchObject({ host: 'next.attacker.example', suppressed: 0, suppressedOtherHosts: 6 });
  });
});
