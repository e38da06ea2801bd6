import { randomInt } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import { AGENT_KIND_BASE, CLASS_CODES, DAY_MS, EVIDENCE_CODES, REFERRAL_KIND } from '../analytics-codes.js';
import type { AnalyticsStore, SiteReclassification } from '../analytics-store.js';
import { aiReferralOf } from '../classification/ai-referral.js';
import type { HitClassifier } from '../classification/classify-hit.js';
import { classifyStored, type StoredHitVerdict } from '../reclassification/stored-hit-verdicts.js';
import { reverifyKeys, type EvidenceKey } from '../reclassification/stored-reverifications.js';
import type { RangeCatalog } from '../verification/range-catalog.js';
import { randomBase62 } from '../../core/ids.js';
import { identifier, listLiteral, raw, sql, tsvField } from './clickhouse-literal.js';
import {
  CLAIM_RENEW_MS,
  GENERATION_ABANDONED,
  GENERATION_CLAIMED,
  GENERATION_SWITCHED,
  SUPERSEDED_GRACE_MS,
  type ClickHouseGenerations,
  type Generation,
  type GenerationMap,
} from './clickhouse-generations.js';
import { readTable, type ClickHouseTarget } from './clickhouse-migrations.js';
import { copyStatement, verdictLine } from './clickhouse-reclassify-copy.js';

/** Rollups keyed by generation, cleaned with the raw hits once a generation is superseded. */
const GENERATION_TABLES = ['analytics_hits', 'analytics_visitor_gen_days', 'analytics_hit_gen_days', 'analytics_page_view_gen_days'] as const;
const ID_CHUNK = 500;

/**
 * Reclassification on ClickHouse (docs/classification.md, "Reclassification"): a site's
 * hits from `fromDay` on are written again, reclassified, under a new generation, and the
 * site switches to it with one insert into analytics_generations. Queries read the
 * generation answering for each day only (clickhouse-generations.ts), so they see the
 * site all before or all after, never half of it and never a hit twice. The superseded
 * generation is deleted afterwards (mutations, waited for).
 *
 * Concurrent writers: the generation is claimed before the hits to copy are read, and
 * writers write their hits into every claimed generation too (ClickHouseHitWriter), so a
 * hit is either copied or written into it. A run that dies leaves its claim; after
 * CLAIM_STALE_MS a later run for the same table version takes it over and copies what
 * is missing (unique (event_id, nonce)), so nothing is done twice.
 */
export class ClickHouseReclassifier {
  constructor(
    private readonly primary: AnalyticsStore,
    private readonly client: ClickHouseClient,
    private readonly target: ClickHouseTarget,
    private readonly generations: ClickHouseGenerations,
    private readonly mutate: (table: string, where: string) => Promise<void>,
    /** Writes the ingest spool into ClickHouse (clickhouse-spool.ts), so hits classified before the table changed are copied too. */
    private readonly flushSpool: () => Promise<void> = () => Promise.resolve(),
  ) {}

  private table(name: string) {
    return raw(readTable(this.target, name));
  }

  private async rows<Row>(query: string): Promise<Row[]> {
    return (await this.client.query({ query, format: 'JSONEachRow' })).json<Row>();
  }

  /** Sites whose answering hits from `fromAt` on include some of another table version (or from before categories). */
  async sitesLeft(versionId: number, fromAt: number): Promise<number[]> {
    const stale = sql`at >= ${fromAt} AND (classifier_version != ${versionId} OR category = 0)`;
    // Spooled hits count too: a site whose only stale hits wait in the spool is a site left.
    await this.flushSpool();
    const candidates = await this.rows<{ site: number }>(sql`SELECT DISTINCT site FROM ${this.table('analytics_hits')} WHERE ${raw(stale)} ORDER BY site`);
    // Rows of superseded generations stay until the prune deletes them: a site reclassified before is checked in the generations that answer.
    const reclassified = new Set(await this.generations.sites());
    const sites: number[] = [];
    for (const { site } of candidates) {
      if (reclassified.has(Number(site))) {
        const live = (await this.generations.of(Number(site))).predicate();
        const [row] = await this.rows<{ n: string }>(
          sql`SELECT count() AS n FROM ${this.table('analytics_hits')} WHERE site = ${Number(site)} AND ${raw(live)} AND ${raw(stale)}`,
        );
        if (Number(row?.n ?? 0) === 0) continue;
      }
      sites.push(Number(site));
    }
    return sites;
  }

  /**
   * Reclassifies one site's hits from `fromAt` (a UTC midnight) on. Every hit is copied
   * into a new generation, whose rollups the materialized views build, so every hit
   * rewritten is also counted again (no in-place update in 18.16, docs/classification.md).
   */
  async reclassifySite(
    site: number,
    classifier: HitClassifier,
    versionId: number,
    fromAt: number,
    ranges?: RangeCatalog | null,
  ): Promise<SiteReclassification> {
    const rewritten = await this.rewriteSite(site, classifier, versionId, fromAt, ranges);
    return { rewritten, refolded: rewritten };
  }

  /** The hits rewritten (0: nothing left, or another run has the site). */
  private async rewriteSite(site: number, classifier: HitClassifier, versionId: number, fromAt: number, ranges?: RangeCatalog | null): Promise<number> {
    const fromDay = Math.floor(fromAt / DAY_MS);
    // Identifies this run's claims: two runs of one process are as separate as two processes.
    const owner = randomBase62(16);
    // Hits accepted before this run, still in the spool, carry the classification they were
    // accepted with: written after the claim they would enter the new generation as they are,
    // so they are written first and copied like every other.
    await this.flushSpool();
    const before = await this.generations.of(site);
    const [left] = await this.rows<{ n: string }>(
      sql`SELECT count() AS n FROM ${this.table('analytics_hits')} WHERE site = ${site} AND day >= ${fromDay} AND ${raw(before.predicate())}
        AND (classifier_version != ${versionId} OR category = 0)`,
    );
    if (Number(left?.n ?? 0) === 0) return 0;
    if (before.claims.length > 0) return 0;
    // A dead run's claim of the same work is resumed; any other dead claim is abandoned.
    let resumed: Generation | undefined;
    for (const generation of before.generations) {
      if (generation.state !== GENERATION_CLAIMED || before.claims.includes(generation)) continue;
      if (resumed === undefined && generation.version === versionId && generation.fromDay === fromDay) resumed = generation;
      else await this.generations.record(site, generation, GENERATION_ABANDONED, owner);
    }
    const taken = new Set(before.generations.map((generation) => generation.gen));
    let gen = resumed?.gen ?? 0;
    while (gen === 0 || (resumed === undefined && taken.has(gen))) gen = randomInt(1, 2 ** 32 - 1);
    const generation = { gen, fromDay, version: versionId };
    await this.generations.record(site, generation, GENERATION_CLAIMED, owner);
    const renew = setInterval(() => void this.generations.record(site, generation, GENERATION_CLAIMED, owner).catch(() => {}), CLAIM_RENEW_MS);
    renew.unref();
    try {
      const claimed = await this.generations.of(site);
      // Two runs that claimed at once both see both claims: the lower generation goes on.
      if (claimed.claims.some((claim) => claim.gen < gen)) {
        await this.generations.record(site, generation, GENERATION_ABANDONED, owner);
        return 0;
      }
      const rewritten = await this.copy(site, classifier, generation, claimed, ranges ?? null);
      const switchedAt = Math.max(this.generations.now(), ...claimed.generations.map((known) => known.switchedAt + 1));
      await this.generations.record(site, generation, GENERATION_SWITCHED, owner, switchedAt);
      return rewritten;
    } finally {
      clearInterval(renew);
    }
  }

  /** Writes the answering hits from `fromDay` on into the claimed generation, reclassified; returns how many it read. */
  private async copy(
    site: number,
    classifier: HitClassifier,
    generation: { gen: number; fromDay: number; version: number },
    map: GenerationMap,
    ranges: RangeCatalog | null,
  ): Promise<number> {
    const { gen, fromDay } = generation;
    // On a cluster the set is built once, here, and sent to the shards (GLOBAL): each shard
    // reading the Distributed table again inside its part of the query is refused
    // (distributed_product_mode = deny).
    const notIn = raw(this.target.cluster === undefined ? 'NOT IN' : 'GLOBAL NOT IN');
    // Hits already in the generation (written there by writers, or by a run that died) are not copied again.
    const answering = raw(
      sql`site = ${site} AND day >= ${fromDay} AND ${raw(map.predicate())}
        AND (event_id, nonce) ${notIn} (SELECT event_id, nonce FROM ${this.table('analytics_hits')} WHERE site = ${site} AND gen = ${gen})`,
    );
    const verdicts = this.scratch(`reclass_verdicts_${gen}`);
    const referrals = this.scratch(`reclass_referrals_${gen}`);
    const checks = this.scratch(`reclass_checks_${gen}`);
    const scratchTables = [verdicts, referrals, checks];
    for (const table of scratchTables) await this.client.command({ query: `DROP TABLE IF EXISTS ${table}` });
    await this.client.command({
      query: `CREATE TABLE ${verdicts} (user_agent Int32, page Int32, markdown_accept UInt8, v_class UInt8, v_agent Int32, v_category UInt8, v_read_kind UInt8) ENGINE = Memory`,
    });
    await this.client.command({ query: `CREATE TABLE ${referrals} (ref_key String, r_referral Int32) ENGINE = Memory` });
    // Re-verified groups (stored-reverifications.ts): c_found = 1 on a match, 0 (the default) on none.
    await this.client.command({
      query: `CREATE TABLE ${checks} (user_agent Int32, page Int32, markdown_accept UInt8, block_key String, evidence UInt8, verification UInt8,
        c_found UInt8, c_class UInt8, c_agent Int32, c_category UInt8, c_verification UInt8) ENGINE = Memory`,
    });
    try {
      const stored = await this.verdicts(site, classifier, answering);
      await this.insertText(verdicts, stored.map(verdictLine));
      if (ranges !== null) await this.insertText(checks, await this.checkLines(site, ranges, stored, answering));
      await this.insertText(referrals, await this.referralLines(site, answering));
      const [count] = await this.rows<{ n: string }>(sql`SELECT count() AS n FROM ${this.table('analytics_hits')} WHERE ${answering}`);
      // One JOIN per SELECT on 18.16: the verdicts inside, the re-verified groups around them, the referrals outermost.
      await this.client.command({ query: copyStatement(this.table('analytics_hits'), answering, generation, { verdicts, checks, referrals }) });
      return Number(count?.n ?? 0);
    } finally {
      for (const table of scratchTables) await this.client.command({ query: `DROP TABLE IF EXISTS ${table}` });
    }
  }

  /**
   * A scratch table, in Memory on the server this client talks to. On a cluster the copy's
   * joins run on that server too (only its innermost read of the hits goes to the shards),
   * so the scratch tables are never needed elsewhere. That needs every statement of a run
   * to reach one server: DOCWRIGHT_ANALYTICS_URL names a server, not a round-robin balancer
   * (docs/operations.md, "Cluster").
   */
  private scratch(name: string): string {
    return `${identifier(this.target.database)}.${identifier(name)}`;
  }

  private async insertText(table: string, lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    await this.client.insert({ table, values: Readable.from([Buffer.from(lines.join(''))], { objectMode: false }), format: 'TabSeparated' });
  }

  /** One verdict per distinct (user agent, page, Markdown Accept) of the hits to copy (classification reads nothing else). */
  private async verdicts(site: number, classifier: HitClassifier, answering: ReturnType<typeof raw>): Promise<StoredHitVerdict[]> {
    const keys = await this.rows<{ user_agent: number; page: number; markdown_accept: number }>(
      sql`SELECT DISTINCT user_agent, page, markdown_accept FROM ${this.table('analytics_hits')} WHERE ${answering}`,
    );
    const userAgents = await this.texts(
      'select id, user_agent as text from analytics_user_agents where id in',
      keys.map((key) => Number(key.user_agent)),
    );
    const paths = await this.texts(
      'select id, name as text from analytics_dimensions where id in',
      keys.map((key) => Number(key.page)),
    );
    const verdicts = keys.map((key) => ({
      key,
      ...classifyStored(classifier, userAgents.get(Number(key.user_agent)) ?? null, paths.get(Number(key.page)) ?? '', Number(key.markdown_accept)),
    }));
    const agentIds = new Map<number, Map<string, number>>();
    for (const verdict of verdicts) {
      if (verdict.agentName === null || agentIds.get(verdict.classCode)?.has(verdict.agentName) === true) continue;
      const names = [
        ...new Set(verdicts.filter((other) => other.classCode === verdict.classCode && other.agentName !== null).map((other) => other.agentName!)),
      ];
      agentIds.set(verdict.classCode, await this.primary.ensureDimensions(site, AGENT_KIND_BASE + verdict.classCode, names));
    }
    return verdicts.map(({ key, classCode, agentName, category, readKind }) => ({
      userAgent: Number(key.user_agent),
      page: Number(key.page),
      markdownAccept: Number(key.markdown_accept),
      classCode,
      agent: agentName === null ? null : agentIds.get(classCode)!.get(agentName)!,
      agentName,
      category,
      readKind,
    }));
  }

  /** The re-verified groups of the hits to copy (stored-reverifications.ts), as lines of the checks table. */
  private async checkLines(site: number, ranges: RangeCatalog, verdicts: readonly StoredHitVerdict[], answering: ReturnType<typeof raw>): Promise<string[]> {
    const keys = await this.rows<EvidenceKey>(
      sql`SELECT DISTINCT user_agent, page, markdown_accept, assumeNotNull(address_block) AS address_block, evidence, verification
        FROM ${this.table('analytics_hits')}
        WHERE ${answering} AND address_block IS NOT NULL AND evidence IN ${listLiteral([EVIDENCE_CODES.address, EVIDENCE_CODES.dns])}`,
    );
    const checks = await reverifyKeys(ranges, verdicts, keys, async (name) => {
      const ids = await this.primary.ensureDimensions(site, AGENT_KIND_BASE + CLASS_CODES.bot, [name]);
      return ids.get(name)!;
    });
    return checks.map(
      (check) =>
        `${check.userAgent}\t${check.page}\t${check.markdownAccept}\t${tsvField(check.addressBlock)}\t${check.evidence}\t${check.verificationBefore}\t1\t` +
        `${check.classCode}\t${check.agent ?? 0}\t${check.category}\t${check.verification}\n`,
    );
  }

  /** The AI product (a REFERRAL_KIND dimension id) of each distinct referrer of the hits to copy that names one. */
  private async referralLines(site: number, answering: ReturnType<typeof raw>): Promise<string[]> {
    const rows = await this.rows<{ referrer: string }>(
      sql`SELECT DISTINCT referrer FROM ${this.table('analytics_hits')} WHERE ${answering} AND referrer IS NOT NULL`,
    );
    const products = new Map<string, string>();
    for (const { referrer } of rows) {
      const product = aiReferralOf(referrer, null);
      if (product !== null) products.set(referrer, product);
    }
    if (products.size === 0) return [];
    const ids = await this.primary.ensureDimensions(site, REFERRAL_KIND, [...new Set(products.values())]);
    return [...products].map(([referrer, product]) => `${tsvField(referrer)}\t${ids.get(product)!}\n`);
  }

  /** id → text of rows of the primary database, by chunks of ids. */
  private async texts(query: string, ids: readonly number[]): Promise<Map<number, string>> {
    const unique = [...new Set(ids)].filter((id) => id !== 0);
    const texts = new Map<number, string>();
    for (let start = 0; start < unique.length; start += ID_CHUNK) {
      const chunk = unique.slice(start, start + ID_CHUNK);
      const rows = await this.primary.select<{ id: number; text: string }>(`${query} (${chunk.map(() => '?').join(', ')})`, chunk);
      for (const row of rows) texts.set(Number(row.id), row.text);
    }
    return texts;
  }

  /**
   * Deletes the rows no query reads any more (with the retention prune, hourly): of every
   * site whose last switch is SUPERSEDED_GRACE_MS old, the rows of generation 0, switched
   * and abandoned generations outside the days each answers for. Only generations named
   * in the list are deleted, so the rows of a claim made meanwhile are never touched, nor
   * those of a claim that may be resumed. Returns the rows deleted.
   */
  async deleteSuperseded(): Promise<number> {
    let deleted = 0;
    for (const site of await this.generations.sites()) {
      const map = await this.generations.of(site);
      const lastSwitch = Math.max(0, ...map.generations.map((generation) => generation.switchedAt));
      if (this.generations.now() - lastSwitch < SUPERSEDED_GRACE_MS) continue;
      const done = map.generations.filter((generation) => generation.state !== GENERATION_CLAIMED).map((generation) => generation.gen);
      const where = sql`site = ${site} AND gen IN ${listLiteral([0, ...done])} AND NOT (${raw(map.predicate())})`;
      for (const table of GENERATION_TABLES) {
        const [row] = await this.rows<{ n: string }>(`SELECT count() AS n FROM ${readTable(this.target, table)} WHERE ${where}`);
        const rows = Number(row?.n ?? 0);
        if (rows === 0) continue;
        await this.mutate(table, where);
        if (table === 'analytics_hits') deleted += rows;
      }
    }
    return deleted;
  }
}
