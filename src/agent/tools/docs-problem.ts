/**
 * `limit`: the check as a whole was cut short (too many pages or problems, out of time).
 * `check-limit`: one page could not be checked within the per-page caps (size, time,
 * memory, nesting); the rest of the site was.
 */
export type DocsProblemKind = 'mdx-syntax' | 'frontmatter' | 'broken-link' | 'navigation' | 'limit' | 'check-limit';

/** One thing `check_docs` found wrong; `line` is 1-based when known. */
export interface DocsProblem {
  path: string;
  line?: number;
  message: string;
  kind: DocsProblemKind;
}

export interface DocsCheckReport {
  problems: DocsProblem[];
  /** Markdown and MDX pages that were checked. */
  filesChecked: number;
  /** True when files or problems beyond the caps were left out (a `limit` problem says which). */
  truncated: boolean;
}
