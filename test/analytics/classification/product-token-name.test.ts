import { describe, expect, test } from 'vitest';
import { productTokenAt } from '../../../src/analytics/classification/product-token-name.js';

const at = (userAgent: string, fragment: string): string | null => {
  const start = userAgent.indexOf(fragment);
  return productTokenAt(userAgent, start, start + fragment.length);
};

describe('productTokenAt', () => {
  test('drops the version and trailing separators', () => {
    expect(at('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Googlebot/')).toBe('Googlebot');
    expect(at('curl/8.4.0', 'curl/8.4.0')).toBe('curl');
  });

  test('widens a fragment to the whole word it sits in', () => {
    expect(at('Mozilla/5.0 (compatible; bingbot/2.0)', 'bot')).toBe('bingbot');
    expect(at('Mozilla/5.0 (compatible; Googlebot/2.1)', 'Google')).toBe('Googlebot');
  });

  test('keeps multi-word names that the match spans', () => {
    expect(at('Screaming Frog SEO Spider/2.22', 'Screaming Frog SEO Spider')).toBe('Screaming Frog SEO Spider');
  });

  test('refuses host names, schemes, URL paths and e-mail addresses', () => {
    const userAgent = 'Mozilla/5.0 (compatible; Foo/1.0; +http://www.example.com/robot/bot.html; crawler@example.com)';
    expect(at(userAgent, 'example.com/robot')).toBeNull();
    expect(at(userAgent, 'http')).toBeNull();
    expect(at(userAgent, 'robot')).toBeNull();
    expect(at(userAgent, 'crawler')).toBeNull();
    expect(at('Nuclei (github.com/projectdiscovery/nuclei)', 'github')).toBeNull();
    expect(at('Nuclei (github.com/projectdiscovery/nuclei)', 'projectdiscovery')).toBeNull();
  });

  test('returns null outside the string or on punctuation only', () => {
    expect(productTokenAt('abc', 10)).toBeNull();
    expect(productTokenAt('(;)', 0, 3)).toBeNull();
    expect(productTokenAt('1.0', 0, 3)).toBeNull();
  });

  test('caps very long names', () => {
    expect(productTokenAt('x'.repeat(500), 0)?.length).toBe(64);
  });
});
