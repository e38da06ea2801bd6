import { createHash } from 'node:crypto';

/**
 * The page beacon, served as /script.js:
 *
 *   <script defer src="https://docwright.example.com/script.js" data-project="PROJECT_ID"></script>
 *
 * It reads its project id from its own tag, and posts { path, referrer } to the collect
 * endpoint of the server it was loaded from. A string body makes sendBeacon send
 * text/plain, a CORS-safelisted type, so there is no preflight request. No cookie, no
 * storage, no identifier: the server derives the visitor from address and user agent.
 * Of the query string only an utm_source goes along, with the page the visit arrived on:
 * AI products tag the links they cite with it (AI referrals, docs/classification.md).
 */
export const BEACON_SCRIPT = `(function () {
  var script = document.currentScript;
  var project = script && script.getAttribute('data-project');
  if (!project) return;
  var endpoint = new URL('/v1/analytics/' + encodeURIComponent(project) + '/collect', script.src).href;
  var referrer = document.referrer || undefined;
  var source = /[?&](utm_source=[^&#]*)/.exec(location.search || '');
  var last = null;
  function send() {
    var path = location.pathname;
    if (path === last) return;
    last = path;
    var body = JSON.stringify({ path: source ? path + '?' + source[1] : path, referrer: referrer });
    referrer = undefined;
    source = null;
    if (navigator.sendBeacon && navigator.sendBeacon(endpoint, body)) return;
    if (typeof fetch === 'function') fetch(endpoint, { method: 'POST', body: body, keepalive: true, mode: 'no-cors', credentials: 'omit' });
  }
  send();
  // Single-page sites change the path without loading a page.
  var pushState = history.pushState;
  history.pushState = function () {
    var result = pushState.apply(this, arguments);
    send();
    return result;
  };
  addEventListener('popstate', send);
})();
`;

export const BEACON_SCRIPT_ETAG = `"${createHash('sha256').update(BEACON_SCRIPT).digest('base64url').slice(0, 16)}"`;
