/**
 * `node --import tsx bench/reclassification-cost.ts [--hits N] [--days D]`: what the
 * reclassification job costs on SQLite (docs/classification.md, "Reclassification"), the
 * job and the fold that counts its copies again, for the two kinds of change it meets:
 *
 * - **relabel only**: new ranges that move no hit's class or agent (a ranges refresh that
 *   only confirms or drops `verified` labels, or publishes blocks no stored hit came from).
 *   The job relabels every hit in place and nothing is folded again;
 * - **refold**: an agent table change that moves a frequent user agent's class from the
 *   first day on, so every day is copied and folded again. This is what every change cost
 *   before the job split at the refold day, and what a change that moves some hit's class
 *   on the first retained day still costs.
 *
 * One synthetic site in a fresh SQLite database: N hits (default 1M) over D days (30),
 * 100,000 visitors, 500 pages; 80 % browsers, the rest GPTBot, Googlebot and Google-Agent,
 * which the old table does not know (a crawler-like "bot" then, `ai` now). Ingested with the
 * old table and folded; then the relabel-only job, then the refold job, each followed by
 * the fold until nothing is left. CPU of this process (SQLite runs in it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import rawTable from '../src/analytics/classification/ai-agents.json' with { type: 'json' };
import { parseAiAgentTable } from '../src/analytics/classification/ai-agent-table.js';
import { createHitClassifier, type HitClassifier } from '../src/analytics/classification/classify-hit.js';
import { HitEncoder } from '../src/analytics/hit-encoder.js';
import { prepareBatch } from '../src/analytics/prepare-batch.js';
import { ReclassificationJob, type ReclassificationProgress } from '../src/analytics/reclassification/reclassification-job.js';
import { SqliteAnalyticsStore } from '../src/analytics/sqlite-analytics-store.js';
import { claimOnlyVerifier } from '../src/analytics/verification/hit-verifier.js';
import { buildRangeCatalog } from '../src/analytics/verification/range-catalog.js';
import { VisitorIdentity } from '../src/analytics/visitor-identity.js';
import { migrate } from '../src/db/migrator.js';
import { openDatabase } from '../src/db/open-database.js';
import { SecretBox } from '../src/core/secret-box.js';
import { ProjectRepository } from '../src/projects/project-repository.js';
import { createSeededRandom } from './lib/seeded-random.js';

const DAY = 86_400_000;
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const BATCH = 1_000;
const FOLD_CHUNK = 50_000;
const { values } = parseArgs({ options: { hits: { type: 'string', default: '1000000' }, days: { type: 'string', default: '30' } } });
const hits = Number(values.hits);
const days = Number(values.days);
if (!Number.isSafeInteger(hits) || hits < BATCH || !Number.isSafeInteger(days) || days < 1)
  throw new Error('--hits (at least 1000) and --days must be positive integers');

const USER_AGENTS = [
  { share: 0.8, ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36' },
  { share: 0.08, ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)' },
  { share: 0.07, ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
  {
    share: 0.05,
    ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Google-Agent; +https://developers.google.com/crawling/docs/crawlers-fetchers/google-agent) Chrome/138.0.7204.183 Safari/537.36',
  },
];
/** Today's table without Google-Agent: its hits move from a crawler class to `ai` when the job brings them to today's. */
const OLD_TABLE = parseAiAgentTable({ ...rawTable, version: '2026-01-01', entries: rawTable.entries.filter((entry) => entry.token !== 'Google-Agent') });

function cpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'docwright-bench-reclassification-'));
  const now = Date.UTC(2026, 10, 28, 12);
  const clock = { now: () => now };
  const database = openDatabase({ databaseUrl: undefined, dataDir: scratch });
  try {
    await migrate(database, clock);
    const store = new SqliteAnalyticsStore(database);
    const projects = new ProjectRepository(database.db, clock, new SecretBox(SECRET));
    const project = await projects.create({ name: 'Reclassification bench', repository: scratch, ref: 'main', forge: 'local', settings: {} });
    const site = await store.ensureSite(project.id);
    const identity = new VisitorIdentity(SECRET);
    const oldClassifier: HitClassifier = createHitClassifier({ table: OLD_TABLE });
    const encoder = new HitEncoder(store, OLD_TABLE.version);
    const random = createSeededRandom(13);
    const first = (Math.floor(now / DAY) - days) * DAY;
    const context = { projectId: project.id, rotateDaily: false, window: { receivedAt: now, latest: now + 300_000, earliest: 0 } };
    process.stderr.write(`ingesting ${hits.toLocaleString('en-US')} hits over ${days} days with the old table…\n`);
    for (let done = 0; done < hits; done += BATCH) {
      const events = Array.from({ length: Math.min(BATCH, hits - done) }, (_, index) => {
        const roll = random();
        let cumulative = 0;
        const userAgent = USER_AGENTS.find((entry) => (cumulative += entry.share) > roll)?.ua ?? USER_AGENTS[0]!.ua;
        return {
          // Hits in time order, as a site's history is.
          timestamp: first + Math.floor(((done + index) / hits) * days * DAY),
          path: `/docs/page-${Math.floor(random() ** 2 * 500)}`,
          visitorId: `v${Math.floor(random() * 100_000)}`,
          userAgent,
        };
      });
      const prepared = prepareBatch(events, context, identity, claimOnlyVerifier, (input) => oldClassifier.classify(input));
      if (!prepared.ok) throw new Error(prepared.message);
      await store.insertHits(await encoder.encode(site, prepared.columns));
    }
    await store.fold(FOLD_CHUNK);

    const measure = async (name: string, job: ReclassificationJob): Promise<void> => {
      const started = cpuSeconds();
      const wall = performance.now();
      const progress: ReclassificationProgress = await job.run();
      const jobCpu = cpuSeconds() - started;
      const jobWall = (performance.now() - wall) / 1000;
      const foldStarted = cpuSeconds();
      const folded = await store.fold(FOLD_CHUNK);
      const foldCpu = cpuSeconds() - foldStarted;
      console.log(
        `${name.padEnd(14)} hits rewritten ${progress.hitsRewritten.toLocaleString('en-US')}, refolded ${progress.hitsRefolded.toLocaleString('en-US')}; ` +
          `job ${jobCpu.toFixed(1)} CPU-s (${jobWall.toFixed(1)} s), fold after it ${foldCpu.toFixed(1)} CPU-s (${folded.toLocaleString('en-US')} hits); ` +
          `total ${(jobCpu + foldCpu).toFixed(1)} CPU-s, ${(((jobCpu + foldCpu) / hits) * 1e6).toFixed(1)} µs per hit`,
      );
    };
    // New ranges for an agent no hit here is checked against: a new version for every hit, no label moves.
    const ranges = buildRangeCatalog({
      version: 'bench',
      sets: [
        {
          id: 'bench-unrelated',
          operator: 'Example',
          agents: ['ExampleBot'],
          url: 'https://example.com/ranges.json',
          format: 'prefixes-json',
          fetchedAt: '2026-11-28T00:00:00.000Z',
          complete: false,
          prefixes: ['192.0.2.0/24'],
        },
      ],
    });
    await measure('relabel only', new ReclassificationJob(store, { classifier: oldClassifier, ranges }));
    await measure('refold', new ReclassificationJob(store, { ranges }));
    await store.close();
  } finally {
    await database.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
