import type { HitCategory } from '../classification/hit-category.js';
import type { SignatureHeaders } from './hit-verifier.js';
import { parseWebBotAuthSignature } from './signature-base.js';

/** Who a signer is, when its requests carry no agent in their User-Agent. */
export interface SignedAgent {
  agent: string;
  operator: string;
  category: HitCategory;
  source: string;
}

/**
 * Browser-driving agents send a browser's User-Agent, so only their Signature-Agent names
 * them. Keyed by the signer's origin. A hit naming one of these is classified as the agent
 * (a claim like any User-Agent); verification then proves it or marks it spoofed.
 */
export const SIGNED_AGENTS: ReadonlyMap<string, SignedAgent> = new Map([
  ['https://chatgpt.com', { agent: 'ChatGPT Agent', operator: 'OpenAI', category: 'ai-agent', source: 'https://platform.openai.com/docs/bots' }],
]);

/**
 * The agent a request's Signature-Agent claims, for a hit whose User-Agent names none (a
 * browser's). Parses the headers only; no key, no cryptography: the claim is checked by the
 * verifier like every other. Null when the headers name no known signer.
 */
export function signedAgentClaim(signature: SignatureHeaders | null | undefined, agents: ReadonlyMap<string, SignedAgent> = SIGNED_AGENTS): SignedAgent | null {
  if (signature == null) return null;
  const parsed = parseWebBotAuthSignature(signature);
  return 'problem' in parsed ? null : (agents.get(parsed.agentUrl) ?? null);
}
