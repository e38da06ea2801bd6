import { createHash } from 'node:crypto';
import { z } from 'zod';
import { buildRangeTable, rangeTableSize, type RangeTable } from './ip-range-set.js';
import shippedRanges from './published-ranges.json' with { type: 'json' };

const rangeSetSchema = z.object({
  id: z.string().regex(/^[a-z0-9-]{1,64}$/),
  operator: z.string().min(1),
  agents: z.array(z.string().min(1)).min(1),
  url: z.url({ protocol: /^https?$/ }),
  format: z.literal('prefixes-json'),
  rdnsSuffixes: z.array(z.string().min(1)).optional(),
  fetchedAt: z.string().nullable(),
  complete: z.boolean(),
  prefixes: z.array(z.string()).max(100_000),
  note: z.string().optional(),
});

export const rangeFileSchema = z.object({
  version: z.string().min(1),
  description: z.string().optional(),
  sets: z.array(rangeSetSchema).max(1_000),
  unpublished: z.record(z.string(), z.string()).optional(),
});

export type RangeFile = z.infer<typeof rangeFileSchema>;
export type RangeSetEntry = z.infer<typeof rangeSetSchema>;

/** The ranges as the verifier uses them; plain data, so it can be posted to an ingest worker. */
export interface RangeCatalog {
  version: string;
  /**
   * A hash of what verification reads (lists, agents, completeness, prefixes): stored hits
   * name it in their classifier version, so ranges that change content (not a refresh
   * that fetched the same lists) start the reclassification job. Absent in hand-made catalogs.
   */
  fingerprint?: string;
  sets: Array<{
    id: string;
    operator: string;
    /** Lower-case agent names the set vouches for. */
    agents: string[];
    /** Fetched from the operator: an address outside it is evidence of a forgery. */
    complete: boolean;
    rdnsSuffixes: string[];
    table: RangeTable;
  }>;
}

export function buildRangeCatalog(file: RangeFile): RangeCatalog {
  return {
    version: file.version,
    fingerprint: rangesFingerprint(file),
    sets: file.sets.map((set) => ({
      id: set.id,
      operator: set.operator,
      agents: set.agents.map((agent) => agent.toLowerCase()),
      complete: set.complete && set.prefixes.length > 0,
      rdnsSuffixes: (set.rdnsSuffixes ?? []).map((suffix) => suffix.toLowerCase()),
      table: buildRangeTable(set.prefixes).table,
    })),
  };
}

/** The content hash of a range file, as RangeCatalog.fingerprint: the same lists give the same value in every process. */
export function rangesFingerprint(file: RangeFile): string {
  const content = file.sets
    .map((set) => ({
      id: set.id,
      agents: set.agents.map((agent) => agent.toLowerCase()).sort(),
      complete: set.complete && set.prefixes.length > 0,
      rdns: (set.rdnsSuffixes ?? []).map((suffix) => suffix.toLowerCase()).sort(),
      prefixes: set.prefixes.map((prefix) => prefix.trim()).sort(),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
  return createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 16);
}

/** The ranges shipped with the package (src/analytics/verification/published-ranges.json). */
export function shippedRangeFile(): RangeFile {
  return rangeFileSchema.parse(shippedRanges);
}

export function catalogSize(catalog: RangeCatalog): number {
  return catalog.sets.reduce((sum, set) => sum + rangeTableSize(set.table), 0);
}

const prefixesJsonSchema = z.object({
  creationTime: z.string().optional(),
  prefixes: z.array(z.object({ ipv4Prefix: z.string().optional(), ipv6Prefix: z.string().optional() })).max(100_000),
});

/**
 * Reads the `{"creationTime", "prefixes": [{"ipv4Prefix"} | {"ipv6Prefix"}]}` format that
 * Google, OpenAI, Microsoft, Perplexity and Apple all publish.
 */
export function parsePrefixesJson(text: string): { prefixes: string[]; creationTime: string | null } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: 'not JSON' };
  }
  const result = prefixesJsonSchema.safeParse(parsed);
  if (!result.success) return { error: 'not a {"prefixes": [...]} range list' };
  const prefixes = result.data.prefixes.flatMap((entry) => [entry.ipv4Prefix, entry.ipv6Prefix].filter((value): value is string => value !== undefined));
  const { invalid } = buildRangeTable(prefixes);
  if (invalid.length > 0) return { error: `not a CIDR block: ${invalid[0]!.slice(0, 60)}` };
  return { prefixes, creationTime: result.data.creationTime ?? null };
}
