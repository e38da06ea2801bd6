/**
 * The finer label every hit gets beside its class (issue 14; docs/classification.md).
 * The class keeps the spec's human/ai split; the category says which kind of AI or bot.
 */
export type HitCategory = 'human' | 'ai-assistant' | 'ai-agent' | 'ai-coding-agent' | 'ai-search' | 'ai-training' | 'ai-other' | 'bot';

export const HIT_CATEGORIES: readonly HitCategory[] = ['human', 'ai-assistant', 'ai-agent', 'ai-coding-agent', 'ai-search', 'ai-training', 'ai-other', 'bot'];

export function isHitCategory(value: unknown): value is HitCategory {
  return typeof value === 'string' && (HIT_CATEGORIES as readonly string[]).includes(value);
}

/**
 * How far a non-human hit's identity is proven: `verified` by a Web Bot Auth signature, the
 * operator's published address ranges or forward-confirmed reverse DNS; `claimed` by its
 * User-Agent only; `spoofed` when it names an operator that signs or publishes ranges and
 * fails that check. Humans carry none.
 */
export type Verification = 'none' | 'claimed' | 'verified' | 'spoofed';

export const VERIFICATIONS: readonly Verification[] = ['none', 'claimed', 'verified', 'spoofed'];

/** What was read: an HTML page, a Markdown rendition, or one of the llms.txt files. */
export type ReadKind = 'page' | 'markdown' | 'llms-txt' | 'llms-full-txt';

export const READ_KINDS: readonly ReadKind[] = ['page', 'markdown', 'llms-txt', 'llms-full-txt'];
