import { describe, expect, test } from 'vitest';
import { botName, detectBot } from '../../../src/analytics/classification/bot-detector.js';

describe('detectBot', () => {
  test.each([
    ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Googlebot'],
    ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'bingbot'],
    ['curl/8.4.0', 'curl'],
    ['curl', 'curl'],
    ['Wget/1.21.4', 'Wget'],
    ['python-requests/2.31.0', 'python-requests'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36', 'HeadlessChrome'],
    ['Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)', 'Pinterestbot'],
    ['Screaming Frog SEO Spider/2.22', 'Screaming Frog SEO Spider'],
    ['Mozilla/5.0 (compatible; yeti/1.1; +http://naver.me/spd)', 'yeti'],
    ['got (https://github.com/sindresorhus/got)', 'got'],
    ['Nuclei - Open-source project (github.com/projectdiscovery/nuclei)', 'Nuclei'],
    ["Mozilla/5.0 (compatible; Let's Encrypt validation server; +https://www.letsencrypt.org)", "Let's Encrypt"],
  ])('%s is a bot named %s', (userAgent, name) => {
    expect(detectBot(userAgent)).toEqual({ name });
  });

  test.each([
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
    // crawler-user-agents lists these as bots, but they are people in in-app browsers and site browsers.
    'Mozilla/5.0 (Linux; Android 16; Pixel 10 Pro XL Build/CP1A.260305.018; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/146.0.7680.174 Mobile Safari/537.36 MetaIAB Facebook',
    'Mozilla/5.0 (Macintosh; U; Intel Mac OS X 10_5_6; en-us) AppleWebKit/528.16 (KHTML, like Gecko) Fluid/0.9.6 Safari/528.16',
  ])('%s is not a bot', (userAgent) => {
    expect(detectBot(userAgent)).toBeNull();
  });
});

describe('botName', () => {
  test('never returns a URL host, scheme or e-mail address', () => {
    for (const userAgent of ['Mozilla/5.0 (compatible; +http://www.example.com/bot.html)', 'Mozilla/5.0 (compatible; crawler@example.com)']) {
      const name = botName(userAgent);
      expect(name === null || !/^(?:https?|www\..*|.*@.*)$/i.test(name), String(name)).toBe(true);
    }
  });
});
