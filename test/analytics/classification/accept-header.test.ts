import { describe, expect, test } from 'vitest';
import { compareGrants, grantFor, parseAccept } from '../../../src/analytics/classification/accept-header.js';
import { prefersMarkdown } from '../../../src/analytics/classification/markdown-request.js';

describe('parseAccept', () => {
  test('reads types, subtypes and quality values', () => {
    expect(parseAccept('text/html, application/xhtml+xml;q=0.9, */*;q=0.8')).toEqual([
      { type: 'text', subtype: 'html', quality: 1, position: 0 },
      { type: 'application', subtype: 'xhtml+xml', quality: 0.9, position: 1 },
      { type: '*', subtype: '*', quality: 0.8, position: 2 },
    ]);
  });

  test('is case-insensitive and tolerant of whitespace', () => {
    expect(parseAccept(' Text/MarkDown ; Q = 0.5 ')).toEqual([{ type: 'text', subtype: 'markdown', quality: 0.5, position: 0 }]);
  });

  test('media type parameters before q are skipped; q after them counts', () => {
    expect(parseAccept('text/markdown;charset=utf-8;variant=gfm;q=0.7')[0]?.quality).toBe(0.7);
  });

  test('commas inside quoted parameter values do not split ranges', () => {
    const ranges = parseAccept('text/markdown;profile="a,b";q=0.4, text/html;q=0.2');
    expect(ranges.map((range) => [range.subtype, range.quality])).toEqual([
      ['markdown', 0.4],
      ['html', 0.2],
    ]);
  });

  test.each(['text/markdown;q=2', 'text/markdown;q=abc', 'text/markdown;q=0.1234', 'text/markdown;q=-1', 'text/markdown;q=1.5'])(
    'drops a range with an invalid weight: %s',
    (header) => {
      expect(parseAccept(header)).toEqual([]);
    },
  );

  test('drops malformed ranges and keeps the rest', () => {
    expect(parseAccept('markdown, */html, /, text/, text/html').map((range) => range.subtype)).toEqual(['html']);
  });

  test('no header means no ranges', () => {
    expect(parseAccept(undefined)).toEqual([]);
    expect(parseAccept(null)).toEqual([]);
    expect(parseAccept('')).toEqual([]);
  });
});

describe('grantFor', () => {
  test('the most specific matching range decides, even with a lower weight', () => {
    const ranges = parseAccept('text/*;q=0.9, text/markdown;q=0.1, */*');
    expect(grantFor(ranges, 'text', 'markdown')).toMatchObject({ quality: 0.1, specificity: 2 });
    expect(grantFor(ranges, 'text', 'html')).toMatchObject({ quality: 0.9, specificity: 1 });
    expect(grantFor(ranges, 'image', 'png')).toMatchObject({ quality: 1, specificity: 0 });
  });

  test('an unmentioned type gets nothing', () => {
    expect(grantFor(parseAccept('text/html'), 'text', 'markdown')).toMatchObject({ quality: 0, specificity: -1 });
  });

  test('compareGrants orders by quality, then explicitness, then position', () => {
    const ranges = parseAccept('text/markdown, text/html, */*');
    const markdown = grantFor(ranges, 'text', 'markdown');
    const html = grantFor(ranges, 'text', 'html');
    expect(compareGrants(markdown, html)).toBeGreaterThan(0);
    expect(compareGrants(html, markdown)).toBeLessThan(0);
  });
});

describe('prefersMarkdown', () => {
  test.each([
    ['text/markdown', true],
    ['text/markdown, text/html, */*', true], // Claude Code's WebFetch
    ['text/markdown, text/html;q=0.9, */*;q=0.8', true],
    ['text/html;q=0.5, text/markdown', true],
    ['text/x-markdown', true],
    ['text/markdown;charset=utf-8', true],
    ['TEXT/MARKDOWN', true],
    ['text/markdown, */*', true],
    ['text/html, text/markdown', false], // equal weight, HTML listed first
    ['text/html, text/markdown;q=0.9', false],
    ['text/markdown;q=0.5, text/html;q=0.9', false],
    ['text/markdown;q=0, text/html', false],
    ['text/markdown;q=0', false],
    ['text/markdown;q=0.000', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['*/*', false],
    ['text/*', false],
    ['text/html;q=0.1, */*', false], // Markdown only through a wildcard is not asking for it
    ['application/json', false],
    ['', false],
    ['text/markdown;q=abc, text/html', false],
    ['text/markdown, application/xhtml+xml', true],
    ['application/xhtml+xml, text/markdown', false],
  ])('%j → %s', (header, expected) => {
    expect(prefersMarkdown(header)).toBe(expected);
  });

  test('a missing header prefers nothing', () => {
    expect(prefersMarkdown(undefined)).toBe(false);
    expect(prefersMarkdown(null)).toBe(false);
  });

  test('an oversized header is read up to its limit without failing', () => {
    expect(prefersMarkdown('text/markdown, ' + 'x/y;q=0.1, '.repeat(10_000))).toBe(true);
    expect(prefersMarkdown('application/x-a, '.repeat(10_000) + 'text/markdown')).toBe(false);
  });
});
