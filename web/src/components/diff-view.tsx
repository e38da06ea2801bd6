import { useMemo, useState } from 'preact/hooks';
import { html, parse, type Diff2HtmlConfig } from 'diff2html';
import { ColorSchemeType } from 'diff2html/lib-esm/types';
import type { DiffFile } from 'diff2html/lib-esm/types';
import 'diff2html/bundles/css/diff2html.min.css';
import { useTheme } from '../hooks/use-theme';

type Layout = 'side-by-side' | 'line-by-line';
const STORAGE_KEY = 'docwright-diff-layout';

function initialLayout(): Layout {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (stored === 'side-by-side' || stored === 'line-by-line') return stored;
  } catch {
    // No storage: choose by width.
  }
  // Two columns of a docs diff do not fit a phone.
  return window.innerWidth < 900 ? 'line-by-line' : 'side-by-side';
}

/** Parses a unified diff once; the page uses the stats for its file list. */
export function parseDiff(diff: string): DiffFile[] {
  return parse(diff, { matching: 'lines' });
}

/**
 * The diff as diff2html draws it. Its HTML is generated from the diff text with every line
 * escaped by diff2html, so inserting it is no different from rendering text.
 */
export function DiffView({ files }: { files: DiffFile[] }) {
  const [layout, setLayout] = useState<Layout>(initialLayout);
  const theme = useTheme();
  // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- diff2html declares ColorSchemeType twice (lib/ for its types, lib-esm/ for the bundle): the same enum
  const colorScheme: Diff2HtmlConfig['colorScheme'] = theme === 'dark' ? ColorSchemeType.DARK : ColorSchemeType.LIGHT;
  const markup = useMemo(() => html(files, { outputFormat: layout, drawFileList: false, matching: 'lines', colorScheme }), [files, layout, colorScheme]);
  const choose = (next: Layout) => {
    setLayout(next);
    try {
      localStorage.setItem(STORAGE_KEY, next);
    } catch {
      // Still applies to this page.
    }
  };
  return (
    <section class="diff-section" aria-labelledby="diff-heading">
      <div class="section-header">
        <h2 id="diff-heading">Changes</h2>
        <div class="segmented" role="group" aria-label="Diff layout">
          <button type="button" class="segment" aria-pressed={layout === 'side-by-side'} onClick={() => choose('side-by-side')}>
            Side by side
          </button>
          <button type="button" class="segment" aria-pressed={layout === 'line-by-line'} onClick={() => choose('line-by-line')}>
            Unified
          </button>
        </div>
      </div>
      <div class="diff-scroll" data-layout={layout} dangerouslySetInnerHTML={{ __html: markup }} />
    </section>
  );
}
