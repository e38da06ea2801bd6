/**
 * The dashboard's Content-Security-Policy: scripts, styles, fonts and API calls from this
 * origin only, no inline script, no framing. Images may also be data: URLs (diff2html and
 * uPlot draw none today; a pasted screenshot in a pull request body would be one).
 * Setting element.style from script (Preact's style prop, uPlot) is CSSOM, which
 * style-src does not restrict, so no 'unsafe-inline' is needed for styles either.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every dashboard page (the single index.html). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': DASHBOARD_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  // The HTML names the current hashed assets, so it must be revalidated after an upgrade.
  'Cache-Control': 'no-cache',
};

/**
 * A pull request page's URL carries its share token: it must not leave in a Referer header,
 * land in a shared cache or be indexed.
 */
export const PULL_REQUEST_PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...PAGE_HEADERS,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'private, no-store',
  'X-Robots-Tag': 'noindex, nofollow',
};

/** Hashed file names never change content, so browsers may keep them for a year without asking. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
