import { describe, expect, test } from 'vitest';
import { InstructionsMemo } from '../../src/jobs/instructions-memo.js';

describe('instructions memo', () => {
  test('remembers the last answer per project and forgets the least recently recorded beyond its bound', () => {
    const memo = new InstructionsMemo(2);
    expect(memo.hadFile('a')).toBeUndefined();
    memo.record('a', true);
    memo.record('b', false);
    memo.record('a', false);
    memo.record('c', true);
    expect(memo.hadFile('b')).toBeUndefined();
    expect(memo.hadFile('a')).toBe(false);
    expect(memo.hadFile('c')).toBe(true);
  });
});
