import { describe, expect, test } from 'vitest';
import { hasMarkdownExtension, isMarkdownRequest } from '../../../src/analytics/classification/markdown-request.js';

describe('hasMarkdownExtension', () => {
  test.each([
    '/docs/intro.md',
    '/docs/intro.mdx',
    '/README.MD',
    '/docs/Intro.Mdx',
    '/docs/intro.md?ref=llms.txt',
    '/docs/intro.md#install',
    '/docs/intro.mdx?x=1#y',
    'intro.md',
    'https://docs.example.com/guide.md',
  ])('%s is a Markdown path', (path) => {
    expect(hasMarkdownExtension(path)).toBe(true);
  });

  test.each([
    '/docs/intro',
    '/docs/intro.html',
    '/docs/intro.md/edit',
    '/docs/intro.mdown',
    '/docs/intro.markdown.html',
    '/docs/md',
    '/docs/intro.txt?file=a.md',
    '/docs/intro#section.md',
    '/llms.txt',
    '/',
    '',
  ])('%s is not a Markdown path', (path) => {
    expect(hasMarkdownExtension(path)).toBe(false);
  });
});

describe('isMarkdownRequest', () => {
  test('either the path or the Accept header is enough', () => {
    expect(isMarkdownRequest({ path: '/a.md' })).toBe(true);
    expect(isMarkdownRequest({ path: '/a', accept: 'text/markdown' })).toBe(true);
    expect(isMarkdownRequest({ path: '/a.md', accept: 'text/html' })).toBe(true);
    expect(isMarkdownRequest({ path: '/a', accept: 'text/html' })).toBe(false);
    expect(isMarkdownRequest({ path: '/a', accept: null })).toBe(false);
  });
});
