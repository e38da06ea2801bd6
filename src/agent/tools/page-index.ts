import path from 'node:path';

export type LinkResolution = 'ok' | 'skipped' | 'missing' | 'outside';

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/**
 * The files of the workspace, answering whether a link or navigation entry names an
 * existing page. Lookups never touch the disk, so a hostile link like
 * `../../etc/passwd` is judged by its text alone.
 */
export class PageIndex {
  private readonly files: ReadonlySet<string>;

  constructor(files: Iterable<string>) {
    this.files = new Set(files);
  }

  has(relativePath: string): boolean {
    return this.files.has(relativePath);
  }

  /**
   * Resolves a link written in `fromPage`. Root-absolute links (`/guides/intro`) start at
   * `docsRoot`, the directory of the site's docs.json or mint.json ('' for the workspace
   * root). External URLs, `mailto:` and pure `#anchors` are skipped.
   */
  resolveLink(target: string, fromPage: string, docsRoot: string): LinkResolution {
    const trimmed = target.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('//') || SCHEME.test(trimmed)) return 'skipped';
    const withoutSuffix = decodePath(trimmed.replace(/[?#].*$/s, ''));
    if (withoutSuffix === '') return 'skipped';
    const base = withoutSuffix.startsWith('/') ? docsRoot : path.posix.dirname(fromPage);
    const joined = normalize(base, withoutSuffix);
    if (joined === undefined) return 'outside';
    // The site root is the home page, which docs.json may point anywhere.
    if (joined === '') return 'ok';
    const candidates = [joined, `${joined}.md`, `${joined}.mdx`, `${joined}/index.md`, `${joined}/index.mdx`];
    return candidates.some((candidate) => this.files.has(candidate)) ? 'ok' : 'missing';
  }

  /**
   * Resolves a navigation page reference (`guides/intro`, relative to `docsRoot`) to the
   * `.mdx` or `.md` file it names, or undefined.
   */
  resolvePage(reference: string, docsRoot: string): string | undefined | 'outside' {
    const joined = normalize(docsRoot, reference.trim().replace(/^\/+/, ''));
    if (joined === undefined) return 'outside';
    const candidates = /\.mdx?$/i.test(joined) ? [joined] : [`${joined}.mdx`, `${joined}.md`];
    return candidates.find((candidate) => this.files.has(candidate));
  }
}

/** Joins and normalises; undefined when the result climbs above the workspace root. */
function normalize(base: string, relative: string): string | undefined {
  const stack: string[] = [];
  for (const segment of [...base.split('/'), ...relative.split('/')]) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') {
      stack.push(segment);
    } else if (stack.pop() === undefined) {
      return undefined;
    }
  }
  return stack.join('/');
}

function decodePath(text: string): string {
  try {
    return decodeURI(text);
  } catch {
    return text;
  }
}
