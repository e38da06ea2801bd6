import { DocwrightError } from '../../core/errors.js';
import type { ImportSummary } from './import-types.js';

/** Thrown when the import's signal aborts; carries what was done so a CLI can still report it. */
export class ImportAbortedError extends DocwrightError {
  constructor(readonly summary: ImportSummary) {
    super('import_aborted', `The import was stopped after ${summary.lines} lines; hits already sent stay counted, and running it again sends nothing twice.`);
    this.name = 'ImportAbortedError';
  }
}
