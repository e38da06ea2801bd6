import type { DocsProblem, DocsProblemKind } from '../../docs-site/docs-problem.js';

export type { DocsProblem, DocsProblemKind } from '../../docs-site/docs-problem.js';

/** What `check_docs` answers the model. */
export interface DocsCheckReport {
  /** Problems this run's changes introduced against the job's base ref, in file order. */
  newProblems: DocsProblem[];
  /** Problems the base ref already had: counted, not listed, so they do not bury new ones. */
  preExisting: { total: number; byKind: Partial<Record<DocsProblemKind, number>> };
  /** Markdown and MDX pages the result covers. */
  pagesChecked: number;
  /** True when pages or problems beyond the caps were left out (a `limit` problem says which). */
  truncated: boolean;
  note?: string;
}
