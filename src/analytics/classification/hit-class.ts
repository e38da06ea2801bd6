/**
 * The five labels every page hit gets, as decisions.md defines them. Only `human` and `ai`
 * count as visitors; the crawler classes are reported by the breakdown endpoints.
 */
export type HitClass = 'human' | 'ai' | 'ai-search' | 'ai-training' | 'bot';

export const HIT_CLASSES: readonly HitClass[] = ['human', 'ai', 'ai-search', 'ai-training', 'bot'];

/** The classes an entry of the AI agent table may carry. */
export type AiAgentClass = Extract<HitClass, 'ai' | 'ai-search' | 'ai-training'>;

export const AI_AGENT_CLASSES: readonly AiAgentClass[] = ['ai', 'ai-search', 'ai-training'];

export function isHitClass(value: unknown): value is HitClass {
  return typeof value === 'string' && (HIT_CLASSES as readonly string[]).includes(value);
}

export function countsAsHuman(hitClass: HitClass): boolean {
  return hitClass === 'human';
}

export function countsAsAi(hitClass: HitClass): boolean {
  return hitClass === 'ai';
}
