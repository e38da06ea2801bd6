/**
 * AI referrals: a person arriving from an AI product, told by the Referer of the page
 * view (chatgpt.com, perplexity.ai…) or by the `utm_source` the product appends to links
 * it cites (ChatGPT adds utm_source=chatgpt.com). The source is the product's canonical
 * host, so one product is one row in reports whatever alias or subdomain it came from.
 */

import { isWellFormed } from '../utf8-text.js';

/** Hosts of AI products (and their subdomains) → the product's canonical host. */
const AI_PRODUCT_HOSTS: ReadonlyMap<string, string> = new Map([
  ['chatgpt.com', 'chatgpt.com'],
  ['chat.openai.com', 'chatgpt.com'],
  ['perplexity.ai', 'perplexity.ai'],
  ['claude.ai', 'claude.ai'],
  ['gemini.google.com', 'gemini.google.com'],
  ['bard.google.com', 'gemini.google.com'],
  ['notebooklm.google.com', 'notebooklm.google.com'],
  ['copilot.microsoft.com', 'copilot.microsoft.com'],
  ['copilot.cloud.microsoft', 'copilot.microsoft.com'],
  ['chat.mistral.ai', 'chat.mistral.ai'],
  ['chat.deepseek.com', 'chat.deepseek.com'],
  ['meta.ai', 'meta.ai'],
  ['grok.com', 'grok.com'],
  ['chat.qwen.ai', 'chat.qwen.ai'],
  ['kimi.com', 'kimi.com'],
  ['kimi.moonshot.cn', 'kimi.com'],
  ['you.com', 'you.com'],
  ['phind.com', 'phind.com'],
  ['poe.com', 'poe.com'],
]);

/** utm_source values that are a product's name rather than its host. */
const UTM_ALIASES: ReadonlyMap<string, string> = new Map([
  ['chatgpt', 'chatgpt.com'],
  ['openai', 'chatgpt.com'],
  ['perplexity', 'perplexity.ai'],
  ['claude', 'claude.ai'],
  ['gemini', 'gemini.google.com'],
  ['copilot', 'copilot.microsoft.com'],
]);

// Host of an absolute http(s) URL, without user info or port; cheaper than new URL() per hit.
const URL_HOST = /^https?:\/\/(?:[^/?#@]*@)?([^/?#:]+)/i;

/** The canonical host of the AI product `host` belongs to, or null. */
function productOfHost(host: string): string | null {
  let name = host.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  for (;;) {
    const product = AI_PRODUCT_HOSTS.get(name);
    if (product !== undefined) return product;
    const dot = name.indexOf('.');
    // Stop at the registrable part: "com" alone never names a product.
    if (dot === -1 || !name.includes('.', dot + 1)) return null;
    name = name.slice(dot + 1);
  }
}

/** The AI product a visit came from, by its referrer first, then its utm_source; null when neither names one. */
export function aiReferralOf(referrer: string | null, utmSource: string | null): string | null {
  if (referrer !== null) {
    const host = URL_HOST.exec(referrer)?.[1];
    if (host !== undefined) {
      const product = productOfHost(host);
      if (product !== null) return product;
    }
  }
  if (utmSource !== null && utmSource !== '') {
    const value = utmSource.trim().toLowerCase();
    return UTM_ALIASES.get(value) ?? productOfHost(value.startsWith('www.') ? value.slice(4) : value);
  }
  return null;
}

/** Longest utm_source kept: product hosts are short; longer values are not one. */
const MAX_UTM_SOURCE_LENGTH = 100;

/** The utm_source parameter of a path's query string, percent-decoded; null when absent or malformed. */
export function utmSourceOf(pathWithQuery: string): string | null {
  const query = pathWithQuery.indexOf('?');
  if (query === -1) return null;
  const match = /[?&]utm_source=([^&#]*)/.exec(pathWithQuery.slice(query));
  if (match === null) return null;
  const raw = match[1]!.replace(/\+/g, ' ');
  if (raw.length === 0 || raw.length > MAX_UTM_SOURCE_LENGTH * 3) return null;
  try {
    const value = decodeURIComponent(raw);
    // A raw unpaired surrogate passes decodeURIComponent; it is no product's name, and the importer's encodeURIComponent would throw on it.
    return value.length > MAX_UTM_SOURCE_LENGTH || !isWellFormed(value) ? null : value;
  } catch {
    return null;
  }
}
