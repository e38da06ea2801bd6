import type { ClickHouseClient } from '@clickhouse/client';
import { integerLiteral, raw, sql } from './clickhouse-literal.js';
import { readTable, type ClickHouseTarget } from './clickhouse-migrations.js';

export const GENERATION_CLAIMED = 1;
export const GENERATION_SWITCHED = 2;
export const GENERATION_ABANDONED = 3;

/**
 * A claim not renewed for this long belongs to a run that died: a later run takes it
 * over (and resumes writing into it), and writers stop writing into it. Runs renew their
 * claim every CLAIM_RENEW_MS.
 */
export const CLAIM_STALE_MS = 10 * 60_000;
export const CLAIM_RENEW_MS = 60_000;

/** What analytics_generations says about one generation of a site. */
export interface Generation {
  gen: number;
  fromDay: number;
  version: number;
  /** The latest state recorded: claimed, switched or abandoned. */
  state: number;
  /** When it was switched (switched only): later switches win where they overlap. */
  switchedAt: number;
  /** The latest claim's time and owner (claimed only). */
  claimedAt: number;
  owner: string;
}

/** The generation that answers for days from `fromDay` (inclusive) to `toDay` (exclusive). */
export interface GenerationSpan {
  fromDay: number;
  toDay: number;
  gen: number;
}

/**
 * A site's generations as seen now: which one answers for each day (`spans`, newest
 * first; every day before the first span answers from generation 0), and the live
 * claims, whose generations writers write into as well.
 */
export class GenerationMap {
  readonly spans: readonly GenerationSpan[];
  readonly claims: readonly Generation[];

  constructor(
    readonly generations: readonly Generation[],
    now: number,
  ) {
    const switched = generations.filter((generation) => generation.state === GENERATION_SWITCHED).sort((a, b) => b.switchedAt - a.switchedAt || b.gen - a.gen);
    const spans: GenerationSpan[] = [];
    let lowest = Number.POSITIVE_INFINITY;
    for (const generation of switched) {
      if (generation.fromDay >= lowest) continue;
      spans.push({ fromDay: generation.fromDay, toDay: lowest, gen: generation.gen });
      lowest = generation.fromDay;
    }
    this.spans = spans;
    this.claims = generations.filter((generation) => generation.state === GENERATION_CLAIMED && now - generation.claimedAt < CLAIM_STALE_MS);
  }

  /** When the site last switched generations (0: never): visitor cells built before it are stale. */
  latestSwitch(): number {
    let latest = 0;
    for (const generation of this.generations) if (generation.state === GENERATION_SWITCHED && generation.switchedAt > latest) latest = generation.switchedAt;
    return latest;
  }

  /** The generation answering for `day`. */
  answering(day: number): number {
    for (const span of this.spans) if (day >= span.fromDay) return span.gen;
    return 0;
  }

  /** Every generation a hit of `day` must be written into: the answering one and each live claim that covers the day. */
  targets(day: number): number[] {
    const targets = [this.answering(day)];
    for (const claim of this.claims) if (day >= claim.fromDay && !targets.includes(claim.gen)) targets.push(claim.gen);
    return targets;
  }

  /**
   * The condition a row (with `day` and `gen`) of the site must meet to be counted: it is
   * of the generation answering for its day. SQL text of integers only.
   */
  predicate(): string {
    if (this.spans.length === 0) return 'gen = 0';
    const branches = this.spans.map((span) => `day >= ${integerLiteral(span.fromDay)}, gen = ${integerLiteral(span.gen)}`);
    return `multiIf(${branches.join(', ')}, gen = 0)`;
  }
}

/** Where queries learn which generation answers. */
export interface GenerationSource {
  of(site: number): Promise<GenerationMap>;
}

/**
 * Superseded rows are deleted only once the site has not switched for this long, so a
 * report that read the generation map just before a switch still finds the rows it counts.
 */
export const SUPERSEDED_GRACE_MS = 10 * 60_000;

/** Reads analytics_generations; one small query per call (the table has a few rows per site). */
export class ClickHouseGenerations implements GenerationSource {
  constructor(
    private readonly client: ClickHouseClient,
    private readonly target: ClickHouseTarget,
    readonly now: () => number,
  ) {}

  /** The same maps for every query of one report: all its queries read one generation per day, even across a switch. */
  snapshot(): GenerationSource {
    const maps = new Map<number, Promise<GenerationMap>>();
    return {
      of: (site) => {
        let map = maps.get(site);
        if (map === undefined) maps.set(site, (map = this.of(site)));
        return map;
      },
    };
  }

  /** Sites that have generations (reclassified at least once, or claimed). */
  async sites(): Promise<number[]> {
    const rows = await (
      await this.client.query({ query: sql`SELECT DISTINCT site FROM ${raw(readTable(this.target, 'analytics_generations'))}`, format: 'JSONEachRow' })
    ).json<{ site: number }>();
    return rows.map((row) => Number(row.site));
  }

  async of(site: number): Promise<GenerationMap> {
    const rows = await (
      await this.client.query({
        query: sql`SELECT gen, any(from_day) AS from_day, any(version) AS version, maxIf(at, state = ${GENERATION_ABANDONED}) AS abandoned_at,
            maxIf(at, state = ${GENERATION_SWITCHED}) AS switched_at, maxIf(at, state = ${GENERATION_CLAIMED}) AS claimed_at,
            argMaxIf(owner, at, state = ${GENERATION_CLAIMED}) AS owner
          FROM ${raw(readTable(this.target, 'analytics_generations'))} WHERE site = ${site} GROUP BY gen`,
        format: 'JSONEachRow',
      })
    ).json<{ gen: number; from_day: number; version: number; abandoned_at: string; switched_at: string; claimed_at: string; owner: string }>();
    const generations = rows.map((row) => ({
      gen: Number(row.gen),
      fromDay: Number(row.from_day),
      version: Number(row.version),
      // A switch is final, and so is abandoning a claim: claims are only ever renewed before either.
      state: Number(row.switched_at) > 0 ? GENERATION_SWITCHED : Number(row.abandoned_at) > 0 ? GENERATION_ABANDONED : GENERATION_CLAIMED,
      switchedAt: Number(row.switched_at),
      claimedAt: Number(row.claimed_at),
      owner: row.owner,
    }));
    return new GenerationMap(generations, this.now());
  }

  /** Records a state of a generation; `at` defaults to now (a switch passes a time after every earlier switch of the site). */
  async record(site: number, generation: { gen: number; fromDay: number; version: number }, state: number, owner: string, at = this.now()): Promise<void> {
    await this.client.command({
      query: sql`INSERT INTO ${raw(readTable(this.target, 'analytics_generations'))} (site, gen, from_day, state, version, owner, at)
        VALUES (${site}, ${generation.gen}, ${generation.fromDay}, ${state}, ${generation.version}, ${owner}, ${at})`,
    });
  }
}
