import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { generateDocsSite } from '../../bench/docs-site-generator.js';

const root = mkdtempSync(join(tmpdir(), 'docs-site-generator-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('docs site generator', () => {
  test('the same seed gives the same commit; the plan matches the files', () => {
    const first = generateDocsSite(join(root, 'a'), 200, 7);
    const second = generateDocsSite(join(root, 'b'), 200, 7);
    expect(second.commit).toBe(first.commit);
    expect(generateDocsSite(join(root, 'c'), 200, 8).commit).not.toBe(first.commit);
    expect(first.pageFiles).toHaveLength(200);
    expect(first.hubs.map((hub) => hub.inbound)).toEqual([30, 30, 30]);
    expect(first.edits).toHaveLength(10);
    for (const edit of first.edits) {
      const text = readFileSync(join(first.directory, edit.page), 'utf8');
      expect(text.split(edit.before)).toHaveLength(2);
    }
    // Reusing the directory resets it to the commit rather than writing it again.
    expect(generateDocsSite(join(root, 'a'), 200, 7)).toEqual(first);
  });
});
