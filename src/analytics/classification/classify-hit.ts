import { AI_AGENT_TABLE, type AiAgentEntry, type AiAgentTable } from './ai-agent-table.js';
import { detectBot } from './bot-detector.js';
import { BoundedCache } from './bounded-cache.js';
import type { HitClass } from './hit-class.js';
import type { HitCategory } from './hit-category.js';
import { isMarkdownRequest } from './markdown-request.js';
import { createTokenMatcher } from './token-matcher.js';

export type { HitClass } from './hit-class.js';
export { countsAsAi, countsAsHuman, HIT_CLASSES } from './hit-class.js';
export { AI_AGENT_TABLE_VERSION } from './ai-agent-table.js';

export interface Classification {
  class: HitClass;
  /** Display name of the AI agent or bot ("ChatGPT", "Googlebot", "curl"); null for humans and unnamed clients. */
  agent: string | null;
  /** Who runs the AI agent ("OpenAI"); null when not an entry of the AI agent table. */
  operator: string | null;
  /** The finer label beside the class (docs/classification.md); always consistent with it. */
  category: HitCategory;
}

export interface HitInput {
  userAgent?: string | null;
  path: string;
  accept?: string | null;
}

export interface HitClassifier {
  classify(input: HitInput): Classification;
  /** The AI agent table version this classifier labels with. */
  readonly tableVersion: string;
}

export interface HitClassifierOptions {
  table?: AiAgentTable;
  /** How many distinct user agents to remember; 0 turns the cache off. */
  cacheSize?: number;
}

/** What the user agent alone says; the path and Accept header are combined with it per hit. */
type UserAgentVerdict =
  { kind: 'ai-agent'; classification: Classification } | { kind: 'bot'; classification: Classification; name: string | null } | { kind: 'human' };

// Real user agents are a few hundred bytes; anything longer is padding or an attack, and only
// its start carries product tokens. Bounding it bounds the matching cost and the cache's memory.
const MAX_USER_AGENT_LENGTH = 1024;
const DEFAULT_CACHE_SIZE = 10_000;

const HUMAN: Classification = Object.freeze({ class: 'human', agent: null, operator: null, category: 'human' });
// A Markdown fetch by a client the table does not name: `ai` (decisions.md), of no known kind.
const UNNAMED_MARKDOWN_FETCH: Classification = Object.freeze({ class: 'ai', agent: null, operator: null, category: 'ai-other' });
const EMPTY_USER_AGENT: UserAgentVerdict = Object.freeze({
  kind: 'bot',
  name: null,
  classification: Object.freeze({ class: 'bot', agent: null, operator: null, category: 'bot' }),
});
const HUMAN_VERDICT: UserAgentVerdict = Object.freeze({ kind: 'human' });

export function createHitClassifier(options: HitClassifierOptions = {}): HitClassifier {
  const table = options.table ?? AI_AGENT_TABLE;
  const aiAgents = createTokenMatcher<AiAgentEntry>(table.entries);
  const cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  const cache = cacheSize > 0 ? new BoundedCache<string, UserAgentVerdict>(cacheSize) : null;

  function judgeUserAgent(userAgent: string): UserAgentVerdict {
    // Checked before the generic bot lists, which also flag ChatGPT-User and friends as bots.
    const agent = aiAgents.match(userAgent);
    if (agent !== null) {
      return Object.freeze({
        kind: 'ai-agent',
        classification: Object.freeze({ class: agent.class, agent: agent.name, operator: agent.operator, category: agent.category }),
      });
    }
    const bot = detectBot(userAgent);
    if (bot !== null) {
      return Object.freeze({
        kind: 'bot',
        name: bot.name,
        classification: Object.freeze({ class: 'bot', agent: bot.name, operator: null, category: 'bot' }),
      });
    }
    return HUMAN_VERDICT;
  }

  function verdictFor(rawUserAgent: string | null | undefined): UserAgentVerdict {
    const trimmed = (rawUserAgent ?? '').trim();
    if (trimmed.length === 0) return EMPTY_USER_AGENT;
    const userAgent = trimmed.length > MAX_USER_AGENT_LENGTH ? trimmed.slice(0, MAX_USER_AGENT_LENGTH) : trimmed;
    if (cache === null) return judgeUserAgent(userAgent);
    const known = cache.get(userAgent);
    if (known !== undefined) return known;
    const verdict = judgeUserAgent(userAgent);
    cache.set(userAgent, verdict);
    return verdict;
  }

  return {
    tableVersion: table.version,
    classify(input: HitInput): Classification {
      const verdict = verdictFor(input.userAgent);
      if (verdict.kind === 'ai-agent') return verdict.classification;
      // decisions.md: any Markdown fetch of a page is an AI reading it, whatever client it uses.
      if (isMarkdownRequest(input)) {
        return verdict.kind === 'bot' && verdict.name !== null
          ? { class: 'ai', agent: verdict.name, operator: null, category: 'ai-other' }
          : UNNAMED_MARKDOWN_FETCH;
      }
      return verdict.kind === 'bot' ? verdict.classification : HUMAN;
    },
  };
}

const defaultClassifier = createHitClassifier();

/**
 * Labels one page hit human | ai | ai-search | ai-training | bot. Order: the AI agent table,
 * then Markdown fetches, then generic bots (isbot; empty user agents included), else human.
 */
export function classifyHit(input: HitInput): Classification {
  return defaultClassifier.classify(input);
}
