import { describe, expect, test } from 'vitest';
import crawlers from 'crawler-user-agents';
import { requiredLiteral } from '../../../src/analytics/classification/required-literal.js';

describe('requiredLiteral', () => {
  test.each([
    ['Googlebot\\/', 'googlebot/'],
    ['^curl', 'curl'],
    ['[wW]get', 'wget'],
    ['S[eE][mM]rushBot', 'semrushbot'],
    ['pinterest\\.com\\/bot', 'pinterest.com/bot'],
    ['Ahrefs(Bot|SiteAudit)', 'ahrefs'],
    ['AdsBot-Google([^-]|$)', 'adsbot-google'],
    ['Spider[\\s\\S]*spider\\.com', 'spider.com'],
    ['colou?rbots', 'rbots'], // the optional letter splits the runs; the longer one wins
    ['ab+cdef', 'cdef'], // conservative: nothing is carried across a repetition
    ['x{2}yzw', 'yzw'],
    ['abc{0,1}defg', 'defg'],
    ['Foo|Barbot', null],
    ['a.b', null],
    ['\\d+bot', 'bot'],
  ])('%s requires %j', (pattern, literal) => {
    expect(requiredLiteral(pattern)).toBe(literal);
  });

  test("every literal it claims for a crawler-user-agents pattern occurs in all of that pattern's matches", () => {
    for (const crawler of crawlers) {
      const literal = requiredLiteral(crawler.pattern);
      if (literal === null) continue;
      const expression = new RegExp(crawler.pattern);
      for (const instance of crawler.instances) {
        const found = expression.exec(instance);
        if (found === null) continue;
        expect(found[0].toLowerCase(), `${crawler.pattern} on ${instance}`).toContain(literal);
      }
    }
  });
});
