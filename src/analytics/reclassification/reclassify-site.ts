import type { SiteReclassification, SqlRunner } from '../analytics-store.js';
import { DAY_MS } from '../analytics-codes.js';
import type { HitClassifier } from '../classification/classify-hit.js';
import type { RangeCatalog } from '../verification/range-catalog.js';
import { storedHitVerdicts, storedReferrals } from './stored-hit-verdicts.js';
import { storedReverifications } from './stored-reverifications.js';

export interface ReclassifySiteOptions {
  site: number;
  classifier: HitClassifier;
  /** analytics_classifier_versions id of the classifier's table. */
  versionId: number;
  /** The first instant rebuilt: the first UTC midnight whose whole day still has its raw hits. */
  fromAt: number;
  /** The ranges stored hits are re-verified against (the hit-address-evidence migration); absent: verification follows the older rules only. */
  ranges?: RangeCatalog | null;
}

/** Multi-row inserts into the temporary tables, this many rows a statement. */
const ROWS_PER_INSERT = 200;
const SPOOFED = 3;
const HUMAN = 1;
const SIGNATURE_EVIDENCE = 2;
/** Hits that keep what they counted as: a spoofed label whose evidence is not re-decided, and a claim only the signature made (a browser User-Agent). */
const KEEP = `(h.verification = ${SPOOFED} or (h.evidence = ${SIGNATURE_EVIDENCE} and v.class = ${HUMAN} and h.class <> ${HUMAN}))`;
/** The hit is a person under the new table: it keeps nothing of its address. */
const BECOMES_HUMAN = `(c.verification is null and not ${KEEP} and v.class = ${HUMAN})`;

/**
 * Each hit h with its verdicts: v (class, agent, category, read kind under the new table),
 * c (re-verification of its evidence, when re-decidable) and r (its referrer's AI product).
 * Takes (site, fromAt); callers append further conditions.
 */
const HITS_WITH_VERDICTS = `from analytics_hits h
  join reclass_verdicts v on v.user_agent = coalesce(h.user_agent, 0) and v.page = h.page and v.markdown_accept = h.markdown_accept
  left join reclass_checks c on c.user_agent = coalesce(h.user_agent, 0) and c.page = h.page and c.markdown_accept = h.markdown_accept
    and c.address_block = h.address_block and c.evidence = h.evidence and c.verification_before = h.verification
  left join reclass_referrals r on r.referrer = h.referrer
  where h.site = ? and h.at >= ?`;

/** A hit's new labels over HITS_WITH_VERDICTS (docs/classification.md, "What it keeps"). */
const NEW = {
  class: `case when c.verification is not null then c.class when ${KEEP} then h.class else v.class end`,
  agent: `case when c.verification is not null then c.agent when ${KEEP} then h.agent else v.agent end`,
  category: `case when c.verification is not null then c.category when ${KEEP} then h.category else v.category end`,
  verification: `case
    when c.verification is not null then c.verification
    when ${KEEP} then h.verification
    when v.class = ${HUMAN} then 0
    when h.verification = 2 and v.class = h.class and coalesce(v.agent, 0) = coalesce(h.agent, 0) then 2
    else 1
  end`,
  referral: `case
    when c.verification is not null then null
    when ${KEEP} then h.referral
    when v.class = ${HUMAN} then coalesce(r.referral, case when h.class = ${HUMAN} then h.referral end)
  end`,
  addressBlock: `case when ${BECOMES_HUMAN} then null else h.address_block end`,
  evidence: `case when ${BECOMES_HUMAN} then 0 else h.evidence end`,
};

/** Does the site have hits from `fromAt` on that an older table classified (or that predate categories)? */
export async function siteNeedsReclassification(runner: SqlRunner, site: number, fromAt: number, versionId: number): Promise<boolean> {
  const rows = await runner.all('select 1 as found from analytics_hits where site = ? and at >= ? and (classifier_version <> ? or category = 0) limit 1', [
    site,
    fromAt,
    versionId,
  ]);
  return rows.length > 0;
}

/**
 * Reclassifies one site's raw hits from `fromAt` on, in the caller's transaction
 * (AnalyticsStore.rebuildTransaction), so reports see the site either all before or all
 * after. The rollups count hits by class and agent only, so the work splits at the
 * "refold day", the first day on which some hit's class or agent changes:
 *
 * 1. hits before it are relabelled where they lie (category, verification, read kind,
 *    referral, evidence and version; an UPDATE, so their rollups stay as they are). A
 *    change that moves no hit's class or agent, the common case of a ranges refresh,
 *    ends here: nothing is counted again;
 * 2. each hit from the refold day on is copied with its new labels (a new row: a new seq
 *    on SQLite, a new ingest batch on PostgreSQL, so the fold takes it as unfolded) and
 *    the original is deleted;
 * 3. the site's rollups of the days from the refold day on are deleted, and `max_day`
 *    falls back to the latest visit day left. The fold then counts those days again from
 *    the copies; the visit days before it that the fold needs (the previous visit day of
 *    each visitor, dimension and group) are unchanged, and the counts of earlier days
 *    never depend on later ones. Unique visitors stay exact because nothing is subtracted.
 *
 * A hit labelled `spoofed` keeps what it counted as: the evidence (its address) is gone.
 * Verification otherwise follows the new class: none for humans, `verified` kept while the
 * class and agent are unchanged, else `claimed`. The referral of a human is the AI product
 * of its referrer, else the one it had (an utm_source is not stored). Returns the hits
 * brought to the version and, of those, the ones copied to be counted again (both 0 when
 * another process had done the site already).
 */
export async function reclassifySite(runner: SqlRunner, options: ReclassifySiteOptions): Promise<SiteReclassification> {
  const { site, fromAt, versionId, classifier } = options;
  if (!(await siteNeedsReclassification(runner, site, fromAt, versionId))) return { rewritten: 0, refolded: 0 };
  const postgres = runner.dialect === 'postgres';
  const temporary = async (name: string, columns: string) => {
    if (postgres) {
      await runner.run(`create temporary table ${name} (${columns}) on commit drop`);
    } else {
      await runner.run(`create temporary table if not exists ${name} (${columns})`);
      await runner.run(`delete from temp.${name}`);
    }
  };
  await temporary(
    'reclass_verdicts',
    'user_agent integer, page integer, markdown_accept integer, class integer, agent integer, category integer, read_kind integer, primary key (user_agent, page, markdown_accept)',
  );
  await temporary('reclass_referrals', 'referrer text primary key, referral integer');
  await temporary(
    'reclass_checks',
    'user_agent integer, page integer, markdown_accept integer, address_block text, evidence integer, verification_before integer, ' +
      'class integer, agent integer, category integer, verification integer, ' +
      'primary key (user_agent, page, markdown_accept, address_block, evidence, verification_before)',
  );

  const verdicts = await storedHitVerdicts(runner, classifier, site, fromAt);
  await insertRows(
    runner,
    'reclass_verdicts (user_agent, page, markdown_accept, class, agent, category, read_kind)',
    verdicts.map((verdict) => [verdict.userAgent, verdict.page, verdict.markdownAccept, verdict.classCode, verdict.agent, verdict.category, verdict.readKind]),
  );
  if (options.ranges != null) {
    const checks = await storedReverifications(runner, options.ranges, verdicts, site, fromAt);
    await insertRows(
      runner,
      'reclass_checks (user_agent, page, markdown_accept, address_block, evidence, verification_before, class, agent, category, verification)',
      checks.map((check) => [
        check.userAgent,
        check.page,
        check.markdownAccept,
        check.addressBlock,
        check.evidence,
        check.verificationBefore,
        check.classCode,
        check.agent,
        check.category,
        check.verification,
      ]),
    );
  }
  const referrals = await storedReferrals(runner, site, fromAt);
  await insertRows(
    runner,
    'reclass_referrals (referrer, referral)',
    referrals.map((entry) => [entry.referrer, entry.referral]),
  );
  const fromDay = Math.floor(fromAt / DAY_MS);
  // Rollups count hits by class and agent only: the days before the first one where either
  // changes keep their rollups, and their hits are relabelled where they lie.
  const [first] = await runner.all<{ at: number | null }>(
    `select min(h.at) as at ${HITS_WITH_VERDICTS} and (${NEW.class} is distinct from h.class or ${NEW.agent} is distinct from h.agent)`,
    [site, fromAt],
  );
  const refoldDay = first?.at == null ? null : Math.max(fromDay, Math.floor(Number(first.at) / DAY_MS));
  const relabelEnd = refoldDay === null ? Number.MAX_SAFE_INTEGER : refoldDay * DAY_MS;
  const relabelled =
    relabelEnd > fromAt
      ? await runner.run(
          `update analytics_hits set classifier_version = ?, category = n.category, verification = n.verification, read_kind = n.read_kind,
             referral = n.referral, address_block = n.address_block, evidence = n.evidence
           from (select h.${postgres ? 'ctid' : 'seq'} as id, ${NEW.category} as category, ${NEW.verification} as verification, v.read_kind,
               ${NEW.referral} as referral, ${NEW.addressBlock} as address_block, ${NEW.evidence} as evidence
             ${HITS_WITH_VERDICTS} and h.at < ?) n
           where analytics_hits.${postgres ? 'ctid' : 'seq'} = n.id`,
          [versionId, site, fromAt, relabelEnd],
        )
      : 0;
  if (refoldDay === null) return { rewritten: relabelled, refolded: 0 };
  const refoldAt = refoldDay * DAY_MS;

  // The copies must not be deleted with the originals: they are the rows after `last` on
  // SQLite, the new batch on PostgreSQL (whose transaction is repeatable read, so the copy
  // and the delete see the same originals; a hit committed meanwhile is in neither).
  let batch = 0;
  let last = 0;
  if (postgres) {
    const [row] = await runner.all<{ id: number }>('insert into analytics_ingest_batches (hits) values (0) returning id');
    batch = Number(row!.id);
  } else {
    const [row] = await runner.all<{ seq: number | null }>('select max(seq) as seq from analytics_hits');
    last = Number(row?.seq ?? 0);
  }
  const copied = await runner.run(
    `insert into analytics_hits
       (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version, category, verification, read_kind, status, referral,
        address_block, evidence${postgres ? ', batch' : ''})
     select h.site, h.at, h.page, h.visitor, ${NEW.class}, ${NEW.agent}, h.user_agent, h.referrer, h.markdown_accept, ?,
       ${NEW.category}, ${NEW.verification}, v.read_kind, h.status, ${NEW.referral}, ${NEW.addressBlock}, ${NEW.evidence}${postgres ? ', ?' : ''}
     ${HITS_WITH_VERDICTS}
     order by h.at`,
    postgres ? [versionId, batch, site, refoldAt] : [versionId, site, refoldAt],
  );
  const deleted = postgres
    ? await runner.run('delete from analytics_hits where site = ? and at >= ? and batch <> ?', [site, refoldAt, batch])
    : await runner.run('delete from analytics_hits where site = ? and at >= ? and seq <= ?', [site, refoldAt, last]);
  if (deleted !== copied) throw new Error(`reclassification of site ${site} copied ${copied} hits but deleted ${deleted}`);
  if (postgres) await runner.run('update analytics_ingest_batches set hits = ? where id = ?', [copied, batch]);

  for (const table of ['analytics_visit_days', 'analytics_visitor_counts', 'analytics_hit_counts', 'analytics_page_view_counts']) {
    await runner.run(`delete from ${table} where site = ? and day >= ?`, [site, refoldDay]);
  }
  await runner.run('update analytics_sites set max_day = coalesce((select max(day) from analytics_visit_days where site = ?), -1) where site = ?', [
    site,
    site,
  ]);
  return { rewritten: relabelled + copied, refolded: copied };
}

async function insertRows(runner: SqlRunner, target: string, rows: ReadonlyArray<readonly unknown[]>): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    const placeholders = chunk.map((row) => `(${row.map(() => '?').join(', ')})`).join(', ');
    await runner.run(`insert into ${target} values ${placeholders}`, chunk.flat());
  }
}
