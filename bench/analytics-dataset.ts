/**
 * The analytics benchmark's data: a deterministic, seeded stream of page hits shaped like
 * a busy documentation site. Full size is 10,000,000 hits over 30 days from 1,000,000
 * visitors (15% of them AI assistants), on 5,000 pages whose popularity follows Zipf(1.1);
 * user agents are the real strings of test/fixtures/user-agents.json, by class.
 *
 * Every hit is computed from its index alone (no running state), so any range can be
 * generated on its own, in any order, and the whole set is never held in memory. Every
 * visitor has at least one hit, so the visitor count is exact.
 *
 *   npx tsx bench/analytics-dataset.ts [SCALE] [--count]   prints the first hits, or counts per class
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHitClassifier } from '../src/analytics/classification/classify-hit.js';
import { createSeededRandom, hash32 } from './lib/seeded-random.js';

export type VisitorClass = 'human' | 'ai';

export interface AnalyticsDatasetSpec {
  seed: number;
  hits: number;
  visitors: number;
  pages: number;
  days: number;
  /** Share of visitors that are AI assistants or agents acting for a person. */
  aiShare: number;
  zipfExponent: number;
  /** First instant of the range, UTC ms; a whole day. */
  start: number;
}

export const FULL_DATASET: AnalyticsDatasetSpec = Object.freeze({
  seed: 20250601,
  hits: 10_000_000,
  visitors: 1_000_000,
  pages: 5_000,
  days: 30,
  aiShare: 0.15,
  zipfExponent: 1.1,
  start: Date.UTC(2026, 8, 1),
});

/** Hits and visitors shrink with the scale; pages, days and shares stay, so the shape of the answer does too. */
export function datasetSpec(scale: number, base: AnalyticsDatasetSpec = FULL_DATASET): AnalyticsDatasetSpec {
  if (!(scale > 0 && scale <= 1)) throw new Error(`scale must be within (0, 1] (got ${scale})`);
  const visitors = Math.max(1, Math.round(base.visitors * scale));
  return { ...base, hits: Math.max(visitors, Math.round(base.hits * scale)), visitors };
}

/** Names a dataset in file names, so cached data of another spec is never reused by mistake. */
export function datasetKey(dataset: { spec: AnalyticsDatasetSpec }): string {
  const spec = dataset.spec;
  return [spec.seed, spec.hits, spec.visitors, spec.pages, spec.days, spec.aiShare, spec.zipfExponent, new Date(spec.start).toISOString().slice(0, 10)].join(
    '-',
  );
}

export interface DatasetHit {
  index: number;
  /** UTC ms. */
  timestamp: number;
  path: string;
  userAgent: string;
  ip: string;
  referrer: string | undefined;
  /** 0-based visitor number; the same person always has the same user agent and address. */
  visitor: number;
  visitorClass: VisitorClass;
}

/** One hit as the events endpoint takes it. */
export interface DatasetEvent {
  timestamp: string;
  path: string;
  userAgent: string;
  ip: string;
  referrer?: string;
}

export function toEvent(hit: DatasetHit): DatasetEvent {
  const event: DatasetEvent = { timestamp: new Date(hit.timestamp).toISOString(), path: hit.path, userAgent: hit.userAgent, ip: hit.ip };
  if (hit.referrer !== undefined) event.referrer = hit.referrer;
  return event;
}

const DAY_MS = 86_400_000;
const TWO_TO_32 = 4294967296;
const SECTIONS = [
  'getting-started',
  'guides',
  'reference',
  'api-reference',
  'concepts',
  'tutorials',
  'integrations',
  'sdks',
  'cli',
  'deployment',
  'security',
  'changelog',
];
const TOPICS = [
  'installation',
  'quickstart',
  'authentication',
  'webhooks',
  'rate-limits',
  'pagination',
  'errors',
  'configuration',
  'migrating-from-v1',
  'search',
  'analytics',
  'theming',
  'components',
  'versioning',
  'localization',
  'self-hosting',
  'faq',
  'troubleshooting',
  'permissions',
  'teams',
  'billing',
  'environments',
  'secrets',
  'logging',
  'metrics',
  'tracing',
  'caching',
  'queues',
  'storage',
  'databases',
  'functions',
  'domains',
  'redirects',
  'previews',
  'builds',
  'plugins',
  'testing',
  'accessibility',
  'seo',
  'navigation',
];
const SUBPAGES = ['', 'overview', 'examples', 'options', 'limits', 'best-practices', 'advanced', 'reference', 'python', 'node', 'go', 'ruby'];
const IPV4_PREFIXES = [23, 31, 45, 52, 66, 78, 81, 93, 104, 141, 151, 176, 185, 188, 203, 212];
const REFERRERS = [
  'https://www.google.com/',
  'https://www.bing.com/',
  'https://duckduckgo.com/',
  'https://github.com/example/sdk',
  'https://stackoverflow.com/questions/7612',
  'https://chatgpt.com/',
  'https://news.ycombinator.com/',
];
const HUMAN_REFERRER_SHARE = 0.3;

interface FixtureEntry {
  userAgent: string;
  expected: string;
}

/** The fixture's strings of one class that Docwright's classifier really puts in that class. */
export function fixtureUserAgents(visitorClass: VisitorClass): string[] {
  const fixture = JSON.parse(readFileSync(new URL('../test/fixtures/user-agents.json', import.meta.url), 'utf8')) as FixtureEntry[];
  const classifier = createHitClassifier({ cacheSize: 0 });
  const agents = fixture
    .filter((entry) => entry.expected === visitorClass)
    .map((entry) => entry.userAgent)
    .filter((userAgent) => classifier.classify({ userAgent, path: '/docs/quickstart' }).class === visitorClass);
  if (agents.length === 0) throw new Error(`the user-agent fixture has no ${visitorClass} strings`);
  return agents;
}

/** Distinct, plausible documentation paths, shuffled so that popularity does not follow the alphabet. */
export function pagePaths(count: number, seed: number): string[] {
  const paths: string[] = ['/'];
  for (const subpage of SUBPAGES) {
    for (const section of SECTIONS) {
      for (const topic of TOPICS) {
        if (paths.length >= count) break;
        paths.push(subpage === '' ? `/docs/${section}/${topic}` : `/docs/${section}/${topic}/${subpage}`);
      }
    }
  }
  for (let index = paths.length; index < count; index++) paths.push(`/docs/archive/page-${index}`);
  paths.length = count;
  const random = createSeededRandom(seed);
  for (let index = paths.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [paths[index], paths[other]] = [paths[other]!, paths[index]!];
  }
  return paths;
}

/** Cumulative Zipf(s) probabilities of ranks 1…n: rank k is drawn with weight 1 / k^s. */
export function zipfCumulative(count: number, exponent: number): Float64Array {
  const cumulative = new Float64Array(count);
  let sum = 0;
  for (let rank = 1; rank <= count; rank++) {
    sum += 1 / rank ** exponent;
    cumulative[rank - 1] = sum;
  }
  for (let index = 0; index < count; index++) cumulative[index] = cumulative[index]! / sum;
  return cumulative;
}

/** The generator of one dataset: look-up tables built once, hits computed from their index. */
export class AnalyticsDataset {
  readonly spec: AnalyticsDatasetSpec;
  readonly paths: readonly string[];
  private readonly cumulative: Float64Array;
  private readonly humanAgents: readonly string[];
  private readonly aiAgents: readonly string[];
  private readonly hitsPerVisitor: number;
  private readonly multiplier: number;
  private readonly offset: number;
  private readonly slotMs: number;

  constructor(spec: AnalyticsDatasetSpec) {
    if (!(Number.isInteger(spec.hits) && Number.isInteger(spec.visitors) && spec.visitors >= 1 && spec.hits >= spec.visitors)) {
      throw new Error('a dataset needs whole numbers of hits ≥ visitors ≥ 1');
    }
    if (spec.visitors > 1 << 24) throw new Error('at most 16,777,216 visitors (one IPv4 address each)');
    this.spec = spec;
    this.paths = pagePaths(spec.pages, spec.seed);
    this.cumulative = zipfCumulative(spec.pages, spec.zipfExponent);
    this.humanAgents = fixtureUserAgents('human');
    this.aiAgents = fixtureUserAgents('ai');
    this.hitsPerVisitor = Math.floor(spec.hits / spec.visitors);
    this.multiplier = coprimeNear(spec.visitors, Math.floor(spec.visitors * 0.618) + 1);
    this.offset = hash32(1, spec.seed) % spec.visitors;
    this.slotMs = (spec.days * DAY_MS) / spec.hits;
  }

  get end(): number {
    return this.spec.start + this.spec.days * DAY_MS;
  }

  /** Hits `from` (inclusive) to `to` (exclusive), in time order. */
  *hits(from = 0, to = this.spec.hits): Generator<DatasetHit> {
    const end = Math.min(to, this.spec.hits);
    for (let index = Math.max(0, from); index < end; index++) yield this.hit(index);
  }

  /** Consecutive slices of at most `size` hits. */
  *batches(size: number, from = 0, to = this.spec.hits): Generator<DatasetHit[]> {
    const end = Math.min(to, this.spec.hits);
    for (let start = Math.max(0, from); start < end; start += size) {
      const batch: DatasetHit[] = [];
      for (let index = start; index < Math.min(end, start + size); index++) batch.push(this.hit(index));
      yield batch;
    }
  }

  hit(index: number): DatasetHit {
    const seed = this.spec.seed;
    const visitor = this.visitorOf(index);
    const visitorClass = this.visitorClass(visitor);
    const visitorHash = hash32(visitor, seed ^ 0x5f3759df);
    const agents = visitorClass === 'ai' ? this.aiAgents : this.humanAgents;
    const referrerRoll = hash32(index, seed + 3) / TWO_TO_32;
    return {
      index,
      timestamp: this.spec.start + Math.floor((index + hash32(index, seed + 1) / TWO_TO_32) * this.slotMs),
      path: this.paths[this.pageRank(hash32(index, seed + 2) / TWO_TO_32)]!,
      userAgent: agents[visitorHash % agents.length]!,
      ip: visitorAddress(visitor, visitorHash),
      referrer:
        visitorClass === 'human' && referrerRoll < HUMAN_REFERRER_SHARE
          ? REFERRERS[Math.floor((referrerRoll / HUMAN_REFERRER_SHARE) * REFERRERS.length)]
          : undefined,
      visitor,
      visitorClass,
    };
  }

  /**
   * Every `hitsPerVisitor`-th hit introduces the next visitor (through a fixed
   * permutation, so visitor numbers are spread over time); the others return to a
   * visitor drawn with a strong skew towards a few heavy readers.
   */
  visitorOf(index: number): number {
    const visitors = this.spec.visitors;
    const slot = index / this.hitsPerVisitor;
    const introduced = index % this.hitsPerVisitor === 0 && slot < visitors;
    const pick = introduced ? slot : Math.floor(visitors * (hash32(index, this.spec.seed + 4) / TWO_TO_32) ** 2);
    return (this.multiplier * pick + this.offset) % visitors;
  }

  /** Exactly round(aiShare × visitors) AI visitors, spread evenly over the visitor numbers. */
  visitorClass(visitor: number): VisitorClass {
    const share = this.spec.aiShare;
    return Math.floor((visitor + 1) * share) - Math.floor(visitor * share) === 1 ? 'ai' : 'human';
  }

  private pageRank(roll: number): number {
    const cumulative = this.cumulative;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle]! < roll) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/** A distinct address per visitor: an odd multiplier is a bijection on the low 24 bits. */
function visitorAddress(visitor: number, visitorHash: number): string {
  const scrambled = Math.imul(visitor, 0x2c1b3c6d) & 0xffffff;
  if (visitorHash % 10 === 0) {
    return `2001:db8:${(scrambled >>> 12).toString(16)}:${(scrambled & 0xfff).toString(16)}::${(visitorHash >>> 16).toString(16)}`;
  }
  const prefix = IPV4_PREFIXES[(visitorHash >>> 8) % IPV4_PREFIXES.length]!;
  return `${prefix}.${scrambled >>> 16}.${(scrambled >>> 8) & 255}.${scrambled & 255}`;
}

function coprimeNear(modulus: number, start: number): number {
  for (let candidate = Math.max(1, start); ; candidate++) if (greatestCommonDivisor(candidate, modulus) === 1) return candidate;
}

function greatestCommonDivisor(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const scale = Number(process.argv[2] ?? 0.01);
  const dataset = new AnalyticsDataset(datasetSpec(scale));
  if (process.argv.includes('--count')) {
    const startedAt = performance.now();
    const perClass = { human: 0, ai: 0 };
    for (const hit of dataset.hits()) perClass[hit.visitorClass]++;
    const seconds = (performance.now() - startedAt) / 1000;
    process.stdout.write(`${dataset.spec.hits} hits (${JSON.stringify(perClass)}) generated in ${seconds.toFixed(1)} s\n`);
  } else {
    for (const hit of dataset.hits(0, 5)) process.stdout.write(`${JSON.stringify(toEvent(hit))}\n`);
  }
}
