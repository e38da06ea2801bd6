import { describe, expect, test } from 'vitest';
import { MAX_OPERATIONS, openApiPages } from '../../src/docs-site/openapi-pages.js';

const spec = (body: Record<string, unknown>): string => JSON.stringify({ openapi: '3.1.0', info: { title: 'T', version: '1' }, ...body });

describe('openApiPages', () => {
  test("directory / first tag / summary slug, with Mintlify's character rules", () => {
    const text = spec({
      paths: {
        '/users/{id}': {
          get: { tags: ['User Management', 'Other'], summary: "Get a user's (full) profile, v1.2" },
          delete: { tags: ['User Management'], summary: 'Delete {user} / account' },
        },
      },
    });
    expect(openApiPages(text, 'API-Docs')).toEqual({
      pages: ['api-docs/user-management/get-a-users-full-profile-v12', 'api-docs/user-management/delete-user--account'],
    });
  });

  test('default directory, untagged operations, method and path without a summary', () => {
    const text = spec({ paths: { '/users/{id}/posts': { get: {} }, '/health': { head: { summary: 'Health' } } } });
    expect(openApiPages(text, '')).toEqual({ pages: ['api-reference/get-users-posts', 'api-reference/health'] });
  });

  test('duplicates in one spec get -1, -2', () => {
    const text = spec({ paths: { '/a': { get: { summary: 'List' }, post: { summary: 'List' } }, '/b': { get: { summary: 'List' } } } });
    expect(openApiPages(text, 'api-reference').pages).toEqual(['api-reference/list', 'api-reference/list-1', 'api-reference/list-2']);
  });

  test('x-mint href overrides the URL; x-excluded operations have no page; x-hidden ones do', () => {
    const text = spec({
      paths: {
        '/legacy': { get: { summary: 'Legacy', 'x-mint': { href: '/deprecated-endpoints/legacy-endpoint' } } },
        '/secret': { get: { summary: 'Secret', 'x-excluded': true } },
        '/hidden': { get: { summary: 'Hidden', 'x-hidden': true } },
      },
    });
    expect(openApiPages(text, 'api-reference').pages).toEqual(['deprecated-endpoints/legacy-endpoint', 'api-reference/hidden']);
  });

  test('webhooks make pages the same way; non-method keys of a path item are ignored', () => {
    const text = spec({
      paths: { '/pets': { parameters: [], summary: 'not an operation', post: { summary: 'Add pet', tags: ['Pets'] } } },
      webhooks: { newPet: { post: { summary: 'New pet', tags: ['Pets'] } }, orderUpdated: { post: {} } },
    });
    expect(openApiPages(text, 'api-reference').pages).toEqual(['api-reference/pets/add-pet', 'api-reference/pets/new-pet', 'api-reference/post-orderupdated']);
  });

  test('YAML specs are read, with aliases capped', () => {
    const yaml = 'openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /users:\n    get:\n      summary: List users\n      tags: [Users]\n';
    expect(openApiPages(yaml, 'api-reference')).toEqual({ pages: ['api-reference/users/list-users'] });
    const bomb = ['openapi: 3.0.0', 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 12; level += 1)
      bomb.push(
        `a${level}: &a${level} [${Array(10)
          .fill(`*a${level - 1}`)
          .join(', ')}]`,
      );
    const result = openApiPages(bomb.join('\n'), 'api-reference');
    expect(result.pages).toEqual([]);
    expect(result.problem).toMatch(/alias/i);
  });

  test('invalid specs are problems with no pages', () => {
    expect(openApiPages('{"openapi": ', 'api-reference')).toEqual({ pages: [], problem: expect.stringMatching(/could not be parsed/) });
    expect(openApiPages('title: not openapi\n', 'api-reference')).toEqual({ pages: [], problem: expect.stringMatching(/not an OpenAPI document/) });
    expect(openApiPages('- a list\n', 'api-reference')).toEqual({ pages: [], problem: expect.stringMatching(/not an object/) });
    expect(openApiPages(spec({ paths: [] }), 'api-reference')).toEqual({ pages: [], problem: expect.stringMatching(/"paths" is not an object/) });
    expect(openApiPages(' '.repeat(8 * 1024 * 1024 + 1), 'api-reference').problem).toMatch(/above/);
    const deep = `{"openapi":"3.1.0","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    expect(openApiPages(deep, 'api-reference').pages).toEqual([]);
  });

  test('more operations than the cap is a problem', () => {
    const paths: Record<string, unknown> = {};
    for (let index = 0; index <= MAX_OPERATIONS; index += 1) paths[`/p${index}`] = { get: {} };
    expect(openApiPages(spec({ paths }), 'api-reference')).toEqual({ pages: [], problem: expect.stringMatching(/more than 20000 operations/) });
  });
});
