import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { deriveCommitMessage, MAX_SUBJECT_LENGTH } from '../../src/git/commit-message.js';

const subjectOf = (message: string): string => message.split('\n')[0] ?? '';

describe('deriveCommitMessage', () => {
  test('prefers the first sentence of the summary and lists the files in the body', () => {
    const message = deriveCommitMessage({
      prompt: 'please fix the typos in the install guide',
      summary: 'Fixed three typos in the install guide. Also normalised headings.',
      changedFiles: ['guide/install.md', 'README.md', 'guide/install.md'],
    });
    expect(message).toBe(
      'Fixed three typos in the install guide\n\n' +
        'Fixed three typos in the install guide. Also normalised headings.\n\n' +
        'Changed files:\n- README.md\n- guide/install.md\n',
    );
  });

  test('falls back to the prompt, capitalised, without trailing punctuation', () => {
    const message = deriveCommitMessage({ prompt: '  document the --verbose flag.\nMore detail here.', changedFiles: ['cli.md'] });
    expect(message).toBe('Document the --verbose flag\n\nChanged file:\n- cli.md\n');
  });

  test('cuts a long subject at a word boundary within 72 characters', () => {
    const prompt = 'Rewrite the authentication chapter so that it explains OAuth device flow, personal tokens and service accounts';
    const subject = subjectOf(deriveCommitMessage({ prompt, changedFiles: [] }));
    expect(subject).toBe('Rewrite the authentication chapter so that it explains OAuth device…');
    expect(Array.from(subject).length).toBeLessThanOrEqual(MAX_SUBJECT_LENGTH);
  });

  test('names a generic subject when there is no text at all', () => {
    expect(subjectOf(deriveCommitMessage({ prompt: '', changedFiles: ['a.md'] }))).toBe('Update a.md');
    expect(subjectOf(deriveCommitMessage({ prompt: '   ', changedFiles: ['a.md', 'b.md'] }))).toBe('Update documentation');
  });

  test('limits the file list', () => {
    const files = Array.from({ length: 60 }, (_, index) => `page-${String(index).padStart(2, '0')}.md`);
    const message = deriveCommitMessage({ prompt: 'Bulk edit', changedFiles: files });
    expect(message).toContain('- page-49.md\n- … and 10 more\n');
    expect(message).not.toContain('page-50.md');
  });

  test('every subject is one non-empty line of at most 72 characters', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.option(fc.string({ maxLength: 300 })),
        fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 5 }),
        (prompt, summary, changedFiles) => {
          const subject = subjectOf(deriveCommitMessage({ prompt, summary, changedFiles }));
          expect(subject.trim().length).toBeGreaterThan(0);
          expect(Array.from(subject).length).toBeLessThanOrEqual(MAX_SUBJECT_LENGTH);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('long runs of trailing punctuation cost linear time (the old regex took 6.5 s for this)', () => {
    const started = performance.now();
    const message = deriveCommitMessage({ prompt: `Fix${' ;'.repeat(50_000)}x`, changedFiles: ['a.md'], summary: '. '.repeat(50_000) });
    expect(subjectOf(message).length).toBeLessThanOrEqual(MAX_SUBJECT_LENGTH);
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});
