import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnalyticsService } from '../../../src/analytics/analytics-service.js';
import { classifyHit } from '../../../src/analytics/classification/classify-hit.js';
import { SPOOFED_SUFFIX } from '../../../src/analytics/verification/apply-verification.js';
import type { VerificationService } from '../../../src/analytics/verification/verification-service.js';
import type { ClickHouseSettings } from '../../../src/config/clickhouse-settings.js';
import { USER_AGENTS } from '../../helpers/analytics-kit.js';
import { startFaultProxy, type FaultProxy, type ProxiedRequest } from '../../helpers/fault-proxy.js';
import { hitInsertFailure } from '../../helpers/nonce-batches.js';
import { agentRows, knowDirectory, signedIngestService, useSignedSetup } from '../../helpers/signed-ingest.js';
import { ANALYTICS_BACKENDS } from '../../helpers/test-database.js';

const CHATGPT = classifyHit({ userAgent: USER_AGENTS.ai, path: '/' }).agent!;
const SITE = { siteHosts: ['docs.example.com'] };
/**
 * What a ClickHouse process asks ClickHouse while it stores a batch: the duplicate check of
 * its event ids (the hits themselves go to the spool, and from there to ClickHouse later).
 */
const isHitStore = (request: ProxiedRequest): boolean =>
  /analytics_event_ids/i.test(decodeURIComponent(request.url.replace(/\+/g, ' ')) + request.body.toString());

describe.each(ANALYTICS_BACKENDS)('a signed batch whose hits fail to be stored claims no nonce [%s]', (dialect) => {
  const setup = useSignedSetup(dialect);
  const opened: Array<{ analytics: AnalyticsService; verification: VerificationService }> = [];
  let proxy: FaultProxy | undefined;
  /** While true, ClickHouse answers the duplicate check with a 500 (once `failAfter` settles), and the failing process's spool refuses batches. */
  let failHits = false;
  let failAfter: Promise<unknown> | undefined;
  let answerFailure = (): void => undefined;
  let closeSpool = (): void => undefined;

  afterEach(async () => {
    answerFailure();
    for (const service of opened.splice(0)) await service.analytics.close();
    closeSpool();
    closeSpool = () => undefined;
    await proxy?.close();
    proxy = undefined;
    failHits = false;
    failAfter = undefined;
  });

  /** Another server process of the deployment: its own nonce memory, the shared database. */
  const serverProcess = async (clickhouse?: ClickHouseSettings) => {
    const service = await signedIngestService(setup.kit, SITE, clickhouse ?? setup.kit.t.config.analytics.clickhouse);
    opened.push(service);
    await knowDirectory(service.verification, setup.agentUrl);
    return service.analytics;
  };

  const hit = (nonce: string, visitorId: string) => ({
    path: '/guide',
    visitorId,
    userAgent: USER_AGENTS.ai,
    webBotAuth: setup.signer.headers({
      agentUrl: setup.agentUrl,
      authority: 'docs.example.com',
      created: Math.floor(setup.kit.t.clock.now() / 1000) - 1,
      nonce,
    }),
  });

  /**
   * A process whose hit writes fail while `failHits` is set: a failing insert on SQLite and
   * PostgreSQL; with ClickHouse, a failing commit to its spool (a data directory of its own)
   * and a 500 from ClickHouse to its duplicate check.
   */
  const failingProcess = async (): Promise<{ analytics: AnalyticsService; setFailing(on: boolean): Promise<void> }> => {
    const clickhouse = setup.kit.t.config.analytics.clickhouse;
    if (clickhouse !== undefined) {
      proxy = await startFaultProxy(clickhouse.url, (request) =>
        failHits && isHitStore(request) ? { status: 500, body: 'injected failure', after: failAfter } : { forward: true },
      );
      const spoolFile = join(setup.kit.t.config.dataDir, `failing-spool-${opened.length}.sqlite`);
      const analytics = await serverProcess({ ...clickhouse, url: proxy.url, spoolFile });
      const spool = new BetterSqlite3(spoolFile);
      spool.pragma('busy_timeout = 15000');
      closeSpool = () => spool.close();
      return {
        analytics,
        setFailing: (on) => {
          failHits = on;
          spool.exec(
            on
              ? "create trigger if not exists fail_spool before insert on spooled_hits begin select raise(abort, 'injected failure'); end"
              : 'drop trigger if exists fail_spool',
          );
          return Promise.resolve();
        },
      };
    }
    const failure = await hitInsertFailure(setup.kit.t.services.database);
    return { analytics: await serverProcess(), setFailing: (on) => failure.set(on) };
  };

  it('stores the retried batch as verified, and still catches a real replay in the same or a later batch', async () => {
    const failing = await failingProcess();
    const one = failing.analytics;
    const two = await serverProcess();
    const three = await serverProcess();
    await failing.setFailing(true);
    await expect(one.ingest(setup.kit.projectId, [hit('n1', 'a'), hit('n2', 'b')])).rejects.toThrow();
    await failing.setFailing(false);
    // The client retries; a load balancer sends it to another process (whose own nonce memory is fresh).
    await two.ingest(setup.kit.projectId, [hit('n1', 'a'), hit('n2', 'b')]);
    // n2 replayed in a later batch (caught by the shared table), n3 twice in one batch (caught in memory).
    await three.ingest(setup.kit.projectId, [hit('n2', 'c'), hit('n3', 'd'), hit('n3', 'e')]);
    const rows = await agentRows(two, setup.kit.projectId);
    expect(rows.get(CHATGPT)).toMatchObject({ hits: 3, verifiedHits: 3 });
    expect(rows.get(`${CHATGPT}${SPOOFED_SUFFIX}`)).toMatchObject({ class: 'bot', hits: 2, verifiedHits: 0 });
  });

  // SQLite beside ClickHouse commits the claim before the insert and gives it back when the
  // insert fails. A retry of the same event that ran meanwhile (in another process) relied on
  // that claim: giving it back left its stored hit unclaimed, and a replay by another event
  // then counted as verified. PostgreSQL holds the claim's transaction, so the retry waits.
  it.runIf(dialect === 'clickhouse')('keeps an event’s claim when its insert fails while a retry of the same event is stored', async () => {
    const failing = await failingProcess();
    const two = await serverProcess();
    const three = await serverProcess();
    await failing.setFailing(true);
    // The first attempt's store fails, but only after the retry has been stored.
    failAfter = new Promise<void>((resolve) => (answerFailure = resolve));
    const first = failing.analytics.ingest(setup.kit.projectId, [{ ...hit('n1', 'a'), id: 'evt-1' }]);
    for (let waited = 0; !proxy!.requests.some(isHitStore); waited += 10) {
      if (waited > 10_000) throw new Error('the first attempt never asked ClickHouse');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await two.ingest(setup.kit.projectId, [{ ...hit('n1', 'a'), id: 'evt-1' }])).toMatchObject({ accepted: 1 });
    answerFailure();
    await expect(first).rejects.toThrow();
    // Another event reusing the nonce is a replay.
    await three.ingest(setup.kit.projectId, [{ ...hit('n1', 'b'), id: 'evt-2' }]);
    const rows = await agentRows(two, setup.kit.projectId);
    expect(rows.get(CHATGPT)).toMatchObject({ hits: 1, verifiedHits: 1 });
    expect(rows.get(`${CHATGPT}${SPOOFED_SUFFIX}`)).toMatchObject({ class: 'bot', hits: 1, verifiedHits: 0 });
  });

  it('lets exactly one of two processes storing the same nonce at once count it as verified', async () => {
    const one = await serverProcess();
    const two = await serverProcess();
    await Promise.all([
      one.ingest(setup.kit.projectId, [hit('same', 'a'), hit('own-1', 'b')]),
      two.ingest(setup.kit.projectId, [hit('same', 'c'), hit('own-2', 'd')]),
    ]);
    const rows = await agentRows(one, setup.kit.projectId);
    expect(rows.get(CHATGPT)).toMatchObject({ hits: 3, verifiedHits: 3 });
    expect(rows.get(`${CHATGPT}${SPOOFED_SUFFIX}`)).toMatchObject({ hits: 1, verifiedHits: 0 });
  });
});
