import { AnalyticsService } from '../../src/analytics/analytics-service.js';
import type { AgentReportEntry } from '../../src/analytics/reports/report-types.js';
import { VerificationService } from '../../src/analytics/verification/verification-service.js';
import type { ClickHouseSettings } from '../../src/config/clickhouse-settings.js';
import type { ProjectSettings } from '../../src/projects/project.js';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createAnalyticsKit, type AnalyticsKit } from './analytics-kit.js';
import type { AnalyticsBackend } from './test-database.js';
import { startFakeKeyDirectory, TestSigner, type FakeKeyDirectory } from '../fakes/web-bot-auth-signer.js';
import { TEST_SECRET } from './test-app.js';

/**
 * An analytics service on the kit's database that verifies signatures for real: its own
 * VerificationService (key directories on loopback, as tests allow), the project settings
 * given. Several of them on one database are several server processes of one deployment.
 */
export async function signedIngestService(
  kit: AnalyticsKit,
  settings: ProjectSettings,
  /** Another ClickHouse endpoint (a fault proxy) than the kit's, on the ClickHouse backend. */
  clickhouse: ClickHouseSettings | undefined = kit.t.config.analytics.clickhouse,
): Promise<{ analytics: AnalyticsService; verification: VerificationService }> {
  const verification = new VerificationService({
    clock: kit.t.clock,
    dataDir: null,
    rangeRefreshMs: null,
    allowLoopback: true,
    resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
  });
  await verification.start();
  const analytics = new AnalyticsService({
    database: kit.t.services.database,
    clock: kit.t.clock,
    secret: TEST_SECRET,
    retentionDays: 30,
    projectSettings: async () => settings,
    clickhouse,
    ingestWorkers: 0,
    verifier: { verifier: verification.verifier() },
    verification,
  });
  return { analytics, verification };
}

/** Fetches `agentUrl`'s key directory into the service, as a first signed hit would. */
export async function knowDirectory(verification: VerificationService, agentUrl: string): Promise<void> {
  verification.keys.request(agentUrl);
  await verification.keys.settled();
}

/** The agents report's rows by agent name. */
export async function agentRows(analytics: AnalyticsService, projectId: string): Promise<Map<string, AgentReportEntry>> {
  const { agents } = await analytics.agents(projectId, {});
  return new Map(agents.map((row) => [row.agent, row]));
}

export interface SignedSetup {
  readonly signer: TestSigner;
  /** ChatGPT's key directory on loopback (`http://chatgpt.com:PORT`, resolved to 127.0.0.1). */
  readonly agentUrl: string;
  readonly kit: AnalyticsKit;
}

/**
 * Registers the hooks of a suite of signed-ingest tests on one backend: a fake key
 * directory for the suite, a fresh analytics kit per test.
 */
export function useSignedSetup(dialect: AnalyticsBackend): SignedSetup {
  const signer = new TestSigner();
  let directory: FakeKeyDirectory | undefined;
  let kit: AnalyticsKit | undefined;
  beforeAll(async () => {
    directory = await startFakeKeyDirectory([signer]);
  });
  afterAll(async () => directory?.close());
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
  });
  afterEach(async () => kit?.close());
  return {
    signer,
    get agentUrl() {
      return `http://chatgpt.com:${directory!.port}`;
    },
    get kit() {
      return kit!;
    },
  };
}
