import type { LocalPullRequest } from '../git/forges/local-forge.js';
import type { RenderedDiff } from './rendered-diff-cache.js';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);

function diffLineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff --git')) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return '';
}

/** The diff's lines as escaped, classed HTML: the part of the page worth caching. */
export function renderDiffHtml(diffText: string): string {
  return diffText
    .split('\n')
    .map((line) => `<span class="${diffLineClass(line)}">${escapeHtml(line)}</span>`)
    .join('\n');
}

/** The whole page; every value from the store or the repository is escaped. */
export function renderPullRequestPage(pr: LocalPullRequest, diff: RenderedDiff | null): string {
  const diffHtml = diff ? diff.html : '<span class="del">The branches could not be compared (was the branch deleted?).</span>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>#${pr.number} ${escapeHtml(pr.title)} · Docwright</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 8px}.state{display:inline-block;padding:2px 10px;border-radius:12px;background:#1f883d;color:#fff;font-size:13px}
.state.closed{background:#cf222e}.state.merged{background:#8250df}.meta{color:#59636e;margin:8px 0 24px}
code{background:#eff1f3;padding:1px 4px;border-radius:4px}
section{background:#fff;border:1px solid #d1d9e0;border-radius:6px;margin-bottom:24px}
section>h2{font-size:15px;margin:0;padding:8px 16px;border-bottom:1px solid #d1d9e0;background:#f6f8fa}
.body{white-space:pre-wrap;padding:16px;margin:0;font:inherit}
pre.diff{margin:0;padding:8px 0;overflow-x:auto;font:12px/1.45 ui-monospace,monospace}
pre.diff span{display:block;padding:0 16px;white-space:pre}.add{background:#dafbe1}.del{background:#ffebe9}.hunk{background:#ddf4ff;color:#59636e}.file{font-weight:600;background:#f6f8fa}
</style></head>
<body><main>
<h1>${escapeHtml(pr.title)} <span style="color:#59636e">#${pr.number}</span></h1>
<div><span class="state ${escapeHtml(pr.state)}">${escapeHtml(pr.state)}</span></div>
<p class="meta">Docwright Agent wants to merge <code>${escapeHtml(pr.head)}</code> into <code>${escapeHtml(pr.base)}</code> · opened ${escapeHtml(pr.createdAt)} · updated ${escapeHtml(pr.updatedAt)}</p>
<section><h2>Description</h2><pre class="body">${escapeHtml(pr.body)}</pre></section>
<section><h2>Changes${diff?.truncated ? ' (truncated)' : ''}</h2><pre class="diff">${diffHtml}</pre></section>
</main></body></html>`;
}
