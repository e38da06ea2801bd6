/** What `/` answers when web/dist was never built: the fix, in words an operator can act on. */
export const DASHBOARD_UNAVAILABLE_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Dashboard not built · Docwright</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1b1d24}code{background:#f1f2f7;padding:.1em .3em;border-radius:4px}@media (prefers-color-scheme:dark){body{background:#0e1015;color:#e7e9ee}code{background:#1d222c}}</style></head>
<body>
<main>
<h1>The dashboard is not built</h1>
<p>Docwright's API is running, but the web dashboard's files (<code>web/dist</code>) are missing.</p>
<p>Build them with <code>npm run build:dashboard</code> (or <code>npm install</code>, which builds them too), then reload this page. No restart is needed.</p>
<p>The API itself works: see <a href="/docs">/docs</a>.</p>
</main>
</body>
</html>
`;

export const UNAVAILABLE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  'Retry-After': '30',
};
