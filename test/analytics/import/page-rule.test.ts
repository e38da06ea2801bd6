import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { isPageRequest } from '../../../src/analytics/import/page-rule.js';
import { MAX_PATH_LENGTH, normalizePath } from '../../../src/analytics/import/normalize-path.js';

const get = (path: string, status = 200) => ({ method: 'GET', status, path });

describe('isPageRequest', () => {
  test.each([
    ['/', true],
    ['/docs/guides/quickstart', true],
    ['/docs/guides/', true],
    ['/docs/page.html', true],
    ['/docs/page.htm', true],
    ['/docs/page.md', true],
    ['/docs/page.MDX', true],
    ['/llms.txt', true],
    ['/llms-full.txt', true],
    ['/docs/llms.txt', true],
    ['/docs/v1.2', true],
    ['/docs/page?query=x.css', true],
    ['/index.php', true],
    ['/robots.txt', false],
    ['/humans.txt', false],
    ['/docs/notes.txt', false],
    ['/favicon.ico', false],
    ['/sitemap.xml', false],
    ['/sitemap-0.xml', false],
    ['/sitemap_index.xml.gz', false],
    ['/feed.xml', false],
    ['/rss', true],
    ['/main.css', false],
    ['/bundle.min.js', false],
    ['/chunk.mjs', false],
    ['/bundle.js.map', false],
    ['/logo.SVG', false],
    ['/img/photo.jpeg', false],
    ['/hero.avif', false],
    ['/fonts/inter.woff2', false],
    ['/video/demo.mp4', false],
    ['/downloads/sdk.tar.gz', false],
    ['/release.zip', false],
    ['/app.wasm', false],
    ['/search-index.json', false],
    ['/manual.pdf', false],
    ['/site.webmanifest', false],
    ['/_next/data/build/page', false],
    ['/static/anything', false],
    ['/assets/x', false],
    ['/api/search', false],
    ['/api', false],
    ['/apidocs', true],
    ['/.well-known/security.txt', false],
    ['/_astro/x', false],
    ['/pagefind/pagefind-entry', false],
    ['/cdn-cgi/challenge-platform/h/b', false],
  ])('GET 200 %s → %s', (path, expected) => {
    expect(isPageRequest(get(path))).toBe(expected);
  });

  test.each([
    ['GET', 200, true],
    ['get', 200, true],
    ['HEAD', 200, true],
    ['GET', 204, true],
    ['GET', 206, true],
    ['GET', 299, true],
    ['GET', 304, true],
    ['POST', 200, false],
    ['PUT', 200, false],
    ['OPTIONS', 200, false],
    ['GET', 301, false],
    ['GET', 302, false],
    ['GET', 404, false],
    ['GET', 500, false],
    ['GET', 199, false],
    [undefined, 200, false],
    ['GET', undefined, false],
  ])('%s %s → %s', (method, status, expected) => {
    expect(isPageRequest({ method, status, path: '/docs' })).toBe(expected);
  });

  test('paths that are not paths are not pages', () => {
    expect(isPageRequest(get(''))).toBe(false);
    expect(isPageRequest(get('*'))).toBe(false);
  });

  test('the skipped prefixes can be replaced, e.g. for an API reference under /api/', () => {
    expect(isPageRequest(get('/api/users'), { skipPrefixes: ['/internal/'] })).toBe(true);
    expect(isPageRequest(get('/internal/x'), { skipPrefixes: ['/internal/'] })).toBe(false);
    expect(isPageRequest(get('/internal'), { skipPrefixes: ['/internal/'] })).toBe(false);
    // Extensions still apply.
    expect(isPageRequest(get('/api/x.js'), { skipPrefixes: [] })).toBe(false);
  });
});

describe('normalizePath', () => {
  test.each([
    ['/docs/a', '/docs/a'],
    ['/docs/a?x=1&y=2', '/docs/a'],
    ['/docs/a#section', '/docs/a'],
    ['/docs/a#frag?notquery', '/docs/a'],
    ['/docs/a/', '/docs/a/'],
    ['/Docs/A', '/Docs/A'],
    ['//docs///a//', '/docs/a/'],
    ['https://docs.example.com/guide?x', '/guide'],
    ['http://docs.example.com', '/'],
    ['http://docs.example.com?x=/y', '/'],
    ['/caf%C3%A9', '/café'],
    ['/caf%c3%a9', '/café'],
    ['/with%20space', '/with%20space'],
    ['/raw space', '/raw%20space'],
    ['/%E2%9C%93/%F0%9F%98%80', '/✓/😀'],
    ['/a%2Fb', '/a%2Fb'],
    ['/a%2fb', '/a%2Fb'],
    ['/a%3Fb%23c', '/a%3Fb%23c'],
    ['/100%25', '/100%25'],
    ['/100%', '/100%'],
    ['/bad%zz', '/bad%zz'],
    ['/invalid%C3', '/invalid%C3'],
    ['/invalid%FF%FEx', '/invalid%FF%FEx'],
    ['/nul%00byte', '/nul%00byte'],
    ['/raw\u0001control', '/raw%01control'],
    ['/a/./b', '/a/b'],
    ['/a/../b', '/b'],
    ['/a/b/..', '/a/'],
    ['/../../etc/passwd', '/etc/passwd'],
    ['/a/%2E%2E/b', '/b'],
    ['/a/.hidden', '/a/.hidden'],
    ['/a/..b', '/a/..b'],
  ])('%j → %j', (target, expected) => {
    expect(normalizePath(target)).toBe(expected);
  });

  test.each(['', '*', 'docs/a', 'docs.example.com:443', '?x=1'])('%j is not a path', (target) => {
    expect(normalizePath(target)).toBeUndefined();
  });

  test('long paths are capped without splitting a character', () => {
    expect(normalizePath(`/${'a'.repeat(5000)}`)).toHaveLength(MAX_PATH_LENGTH);
    const emoji = normalizePath(`/${'😀'.repeat(2000)}`) ?? '';
    expect(emoji.length).toBeLessThanOrEqual(MAX_PATH_LENGTH);
    expect(emoji.length).toBeGreaterThan(MAX_PATH_LENGTH - 2);
    expect(emoji.endsWith('😀')).toBe(true);
  });

  test('normalizing is idempotent and always yields a short path starting with /', () => {
    const pathCharacters = fc.constantFrom('/', '/', 'a', 'é', '.', '..', '%', '%2F', '%2e', '%C3%A9', '%FF', '?', '#', ' ', '😀', '\u0000', 'x'.repeat(300));
    fc.assert(
      fc.property(fc.array(pathCharacters, { maxLength: 40 }), (parts) => {
        const once = normalizePath(`/${parts.join('')}`);
        expect(once).toBeDefined();
        expect(once?.startsWith('/')).toBe(true);
        expect(once?.length).toBeLessThanOrEqual(MAX_PATH_LENGTH);
        expect(once).not.toMatch(/\/\/|[?#\u0000]/);
        expect(normalizePath(once ?? '')).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });
});
