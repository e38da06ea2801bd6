import crawlers from 'crawler-user-agents';
import { isbot, isbotMatch } from 'isbot';
import { createCrawlerPatternIndex } from './crawler-pattern-index.js';
import { productTokenAt } from './product-token-name.js';

/**
 * Generic (non-AI) automated clients. Whether a user agent is automated is isbot's call: its
 * list is curated against false positives on real browsers and in-app webviews, and its own
 * test fixtures include the crawler-user-agents list. crawler-user-agents is not used to decide,
 * because some of its patterns match people (the Facebook in-app browser "MetaIAB Facebook",
 * the Fluid browser, an Android build number); it is used to name the bot, because its
 * patterns point at the product token ("Googlebot\/", "bingbot", "^curl").
 */
export interface BotDetection {
  /** A short product name such as "Googlebot", "bingbot" or "curl"; null when none is readable. */
  name: string | null;
}

const crawlerIndex = createCrawlerPatternIndex(crawlers.map((crawler) => crawler.pattern));
const COMPATIBLE_PRODUCT = /\(compatible;\s*/i;
// The historical prefixes every browser-like user agent starts with; they name no product.
const BROWSER_COMPATIBILITY_PREFIX = /^(?:Mozilla|Opera)$/i;

export function detectBot(userAgent: string): BotDetection | null {
  if (!isbot(userAgent)) return null;
  return { name: botName(userAgent) };
}

/** The product name of a client already known to be automated. */
export function botName(userAgent: string): string | null {
  const crawler = crawlerIndex.find(userAgent);
  if (crawler !== null) {
    const name = productTokenAt(userAgent, crawler.start, crawler.start + crawler.text.length);
    if (name !== null) return name;
  }
  // isbotMatch, not isbotMatches: the latter compiles one expression per list item on every call.
  const fragment = isbotMatch(userAgent);
  const start = fragment === null ? -1 : userAgent.indexOf(fragment);
  if (fragment !== null && start !== -1) {
    const name = productTokenAt(userAgent, start, start + fragment.length);
    if (name !== null) return name;
  }
  // Bots matched only through a URL: the product after "compatible;", else the leading product.
  const compatible = COMPATIBLE_PRODUCT.exec(userAgent);
  if (compatible !== null) {
    const name = productTokenAt(userAgent, compatible.index + compatible[0].length);
    if (name !== null) return name;
  }
  const leading = productTokenAt(userAgent, 0);
  return leading !== null && !BROWSER_COMPATIBILITY_PREFIX.test(leading) ? leading : null;
}
