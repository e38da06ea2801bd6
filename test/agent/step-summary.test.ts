import { describe, expect, test } from 'vitest';
import { summarizeToolInput } from '../../src/agent/step-summary.js';

describe('summarizeToolInput', () => {
  test('prefers the path', () => {
    expect(summarizeToolInput({ path: 'docs/intro.md', content: 'x'.repeat(5000) })).toBe('docs/intro.md');
  });

  test('shows moves as from → to, and lists of paths', () => {
    expect(summarizeToolInput({ from: 'a.md', to: 'b.md' })).toBe('a.md → b.md');
    expect(summarizeToolInput({ paths: ['a.md', 'b.md'] })).toBe('a.md, b.md');
  });

  test('otherwise lists short fields and reduces long text to its length', () => {
    expect(summarizeToolInput({ query: 'install', limit: 5, content: 'y'.repeat(100), tags: ['a', 'b'] })).toBe(
      'query=install limit=5 content=<100 chars> tags=[2]',
    );
  });

  test('never grows past a short line', () => {
    expect(summarizeToolInput({ path: 'p/'.repeat(200) }).length).toBeLessThanOrEqual(120);
    expect(summarizeToolInput(undefined)).toBe('');
    expect(summarizeToolInput('plain')).toBe('plain');
  });
});
