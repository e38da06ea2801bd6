import { CLASS_CODES, EVIDENCE_CODES, VERIFICATION_CODES } from '../analytics-codes.js';
import type { StoredHitVerdict } from '../reclassification/stored-hit-verdicts.js';
import { raw, sql } from './clickhouse-literal.js';

const HUMAN = CLASS_CODES.human;
const SPOOFED = VERIFICATION_CODES.spoofed;
const VERIFIED = VERIFICATION_CODES.verified;
/**
 * Hits that keep what they counted as (as reclassify-site.ts on SQL): a spoofed label that
 * is not re-decided, and a claim only the signature made (a browser User-Agent signed by
 * ChatGPT agent), which the table alone calls human.
 */
const KEEP = `(verification = ${SPOOFED} OR (evidence = ${EVIDENCE_CODES.signature} AND v_class = ${HUMAN} AND class != ${HUMAN}))`;
/** The hit is a person under the new table: it keeps nothing of its address. */
const BECOMES_HUMAN = `(c_found = 0 AND NOT ${KEEP} AND v_class = ${HUMAN})`;
const HIT_COLUMNS =
  'site, at, day, page, visitor, class, agent, user_agent, referrer, markdown_accept, event_id, nonce, category, verification, status, referral, address_block, evidence';

/** A line of the verdicts scratch table (user_agent, page, markdown_accept, v_class, v_agent, v_category, v_read_kind). */
export function verdictLine(verdict: StoredHitVerdict): string {
  return `${verdict.userAgent}\t${verdict.page}\t${verdict.markdownAccept}\t${verdict.classCode}\t${verdict.agent ?? 0}\t${verdict.category}\t${verdict.readKind}\n`;
}

/**
 * The one statement that copies the answering hits into generation `gen`, reclassified:
 * the table's verdict per (user agent, page, Markdown Accept), the re-verified label of
 * groups with re-decidable evidence (`checks`, matched on block, evidence and the label
 * before), the referral of a person. The same rules as reclassify-site.ts's copy on SQL,
 * so every backend gives the same answers. 18.16 allows one JOIN per SELECT, hence the
 * nesting; an ANY LEFT JOIN without a match yields the right side's defaults (c_found = 0,
 * r_referral = 0).
 */
export function copyStatement(
  hits: ReturnType<typeof raw>,
  answering: ReturnType<typeof raw>,
  generation: { gen: number; version: number },
  scratch: { verdicts: string; checks: string; referrals: string },
): string {
  const { gen, version } = generation;
  const nullInt = 'CAST(NULL AS Nullable(Int32))';
  return sql`INSERT INTO ${hits}
    (gen, site, at, day, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version, event_id, nonce, category, verification, read_kind,
     status, referral, address_block, evidence)
    SELECT toUInt32(${gen}), site, at, day, page, visitor,
      multiIf(c_found = 1, c_class, ${raw(KEEP)}, class, v_class),
      multiIf(c_found = 1, c_agent, ${raw(KEEP)}, agent, v_agent),
      user_agent, referrer, markdown_accept, toInt32(${version}), event_id, nonce,
      multiIf(c_found = 1, c_category, ${raw(KEEP)}, category, v_category),
      toUInt8(multiIf(c_found = 1, c_verification, ${raw(KEEP)}, verification, v_class = ${HUMAN}, 0,
        verification = ${VERIFIED} AND v_class = class AND v_agent = agent, ${VERIFIED}, 1)),
      v_read_kind, status,
      if(c_found = 1, ${raw(nullInt)}, if(${raw(KEEP)}, referral,
        if(v_class = ${HUMAN}, if(r_referral != 0, toNullable(r_referral), if(class = ${HUMAN}, referral, ${raw(nullInt)})), ${raw(nullInt)}))),
      if(${raw(BECOMES_HUMAN)}, CAST(NULL AS Nullable(String)), address_block),
      toUInt8(if(${raw(BECOMES_HUMAN)}, 0, evidence))
    FROM (
      SELECT ${raw(HIT_COLUMNS)}, ref_key, v_class, v_agent, v_category, v_read_kind, c_found, c_class, c_agent, c_category, c_verification
      FROM (
        SELECT ${raw(HIT_COLUMNS)}, ref_key, block_key, v_class, v_agent, v_category, v_read_kind
        FROM (
          SELECT ${raw(HIT_COLUMNS)}, ifNull(referrer, '') AS ref_key, ifNull(address_block, '') AS block_key
          FROM ${hits} WHERE ${answering}
        ) ANY INNER JOIN (SELECT user_agent, page, markdown_accept, v_class, v_agent, v_category, v_read_kind FROM ${raw(scratch.verdicts)})
        USING (user_agent, page, markdown_accept)
      ) ANY LEFT JOIN (
        SELECT user_agent, page, markdown_accept, block_key, evidence, verification, c_found, c_class, c_agent, c_category, c_verification FROM ${raw(scratch.checks)}
      ) USING (user_agent, page, markdown_accept, block_key, evidence, verification)
    ) ANY LEFT JOIN (SELECT ref_key, r_referral FROM ${raw(scratch.referrals)}) USING (ref_key)`;
}
