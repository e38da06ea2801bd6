import { describe, expect, test } from 'vitest';
import { buildSystemPrompt, buildTurnMessages } from '../../src/agent/prompts.js';

describe('system prompt', () => {
  test('states the working rules', () => {
    const prompt = buildSystemPrompt();
    expect(prompt).toContain('check_docs');
    expect(prompt).toMatch(/never invent credentials/i);
    expect(prompt).toMatch(/minimal/i);
    expect(prompt).toMatch(/existing style/i);
    expect(prompt).toMatch(/summary/i);
  });

  test('adds the project name and instructions when given', () => {
    const prompt = buildSystemPrompt({ projectName: 'Acme Docs', projectInstructions: 'Use British spelling.' });
    expect(prompt).toContain('"Acme Docs"');
    expect(prompt.endsWith('Use British spelling.')).toBe(true);
    expect(buildSystemPrompt({ projectName: '  ' })).toBe(buildSystemPrompt());
  });
});

describe('turn messages', () => {
  test('a first turn is just the prompt', () => {
    expect(buildTurnMessages([], 'Fix the typo')).toEqual([{ role: 'user', content: 'Fix the typo' }]);
  });

  test('earlier turns come first as prompt and final message; the current prompt is last', () => {
    const messages = buildTurnMessages(
      [
        { prompt: 'Add a page', finalMessage: 'Added guide.md.' },
        { prompt: 'Rename it', finalMessage: 'Renamed to intro.md.' },
      ],
      'Now link it from the index',
    );
    expect(messages).toEqual([
      { role: 'user', content: 'Add a page' },
      { role: 'assistant', content: 'Added guide.md.' },
      { role: 'user', content: 'Rename it' },
      { role: 'assistant', content: 'Renamed to intro.md.' },
      { role: 'user', content: 'Now link it from the index' },
    ]);
  });

  test('a turn that did not finish still gets an assistant message, so roles alternate', () => {
    const messages = buildTurnMessages([{ prompt: 'Do it', finalMessage: null }], 'Try again');
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages[1]?.content)).toMatch(/did not finish/);
  });
});
