import { expect } from 'vitest';
import rawTable from '../../src/analytics/classification/ai-agents.json' with { type: 'json' };
import type { AnalyticsStore } from '../../src/analytics/analytics-store.js';
import { parseAiAgentTable, type AiAgentTable } from '../../src/analytics/classification/ai-agent-table.js';
import { createHitClassifier, type HitClassifier } from '../../src/analytics/classification/classify-hit.js';
import { HitEncoder } from '../../src/analytics/hit-encoder.js';
import { prepareBatch } from '../../src/analytics/prepare-batch.js';
import { claimOnlyVerifier } from '../../src/analytics/verification/hit-verifier.js';
import { VisitorIdentity } from '../../src/analytics/visitor-identity.js';
import { USER_AGENTS } from './analytics-kit.js';
import type { OracleHit } from './analytics-oracle.js';
import { TEST_SECRET } from './test-app.js';

/**
 * The table hits were once classified with: today's without some assistants and agents,
 * DuckAssistBot still a search crawler, and one entry today's table dropped (Firefox as a
 * training crawler), so reclassification moves hits in both directions: to ai, to human.
 */
export const OLD_TABLE = parseAiAgentTable({
  version: '2026-01-01',
  entries: [
    ...rawTable.entries
      .filter((entry) => !['Google-Agent', 'Cursor', 'Kimi-User', 'ChatGPT-User'].includes(entry.token))
      .map((entry) => (entry.token === 'DuckAssistBot' ? { ...entry, class: 'ai-search', category: 'ai-search' } : entry)),
    { token: 'Firefox', name: 'Firefox', operator: 'Mozilla', class: 'ai-training', category: 'ai-training', source: 'https://example.com/firefox' },
  ],
});
export const oldClassifier = createHitClassifier({ table: OLD_TABLE });
export const currentClassifier = createHitClassifier();

/** User agents whose class or agent the two tables disagree on, and some they agree on. */
export const RECLASSIFIED_USER_AGENTS = [
  USER_AGENTS.human,
  USER_AGENTS.humanFirefox,
  USER_AGENTS.ai,
  USER_AGENTS.aiTraining,
  USER_AGENTS.bot,
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Google-Agent; +https://developers.google.com/crawling/docs/crawlers-fetchers/google-agent) Chrome/138.0.7204.183 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/0.45.11 Chrome/128.0.6613.186 Electron/32.2.6 Safari/537.36',
  'DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)',
  'curl/8.4.0',
];

export type TableHit = OracleHit & { referrer?: string | null; markdown?: boolean };

const identity = new VisitorIdentity(TEST_SECRET);
const classifiers = new WeakMap<AiAgentTable, HitClassifier>([[OLD_TABLE, oldClassifier]]);

/**
 * Stores `hits` straight into `store` as classified by an older agent table or the current
 * one, as a server of that table's release would have stored them.
 */
export async function storeClassifiedWith(
  store: AnalyticsStore,
  now: number,
  projectId: string,
  hits: readonly TableHit[],
  table: AiAgentTable | 'current',
): Promise<void> {
  const site = await store.ensureSite(projectId);
  const events = hits.map((hit) => ({
    timestamp: hit.at,
    path: hit.path,
    visitorId: hit.visitor,
    userAgent: hit.userAgent,
    referrer: hit.referrer ?? undefined,
    accept: hit.markdown === true ? 'text/markdown' : undefined,
  }));
  const context = { projectId, rotateDaily: false, window: { receivedAt: now, latest: now + 300_000, earliest: 0 } };
  let prepared;
  let encoder: HitEncoder;
  if (table === 'current') {
    prepared = prepareBatch(events, context, identity);
    encoder = new HitEncoder(store);
  } else {
    let classifier = classifiers.get(table);
    if (classifier === undefined) classifiers.set(table, (classifier = createHitClassifier({ table })));
    const classify = classifier;
    prepared = prepareBatch(events, context, identity, claimOnlyVerifier, (input) => classify.classify(input));
    encoder = new HitEncoder(store, table.version);
  }
  if (!prepared.ok) throw new Error(prepared.message);
  expect(prepared.rejected).toEqual([]);
  await store.insertHits(await encoder.encode(site, prepared.columns));
}
