import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createServerPathScrubber } from '../../src/jobs/server-paths.js';

describe('createServerPathScrubber', () => {
  const places = { dataDir: '/srv/docwright/data', workspacesDir: '/srv/docwright/data/workspaces', cwd: '/srv/docwright', home: '/home/alice' };
  const scrub = createServerPathScrubber(places);

  test.each([
    [
      "fatal: Unable to create '/srv/docwright/data/workspaces/J9abc-1-x7Yz12/.git/index.lock': File exists.",
      "fatal: Unable to create '<workspace>/.git/index.lock': File exists.",
    ],
    [
      'The workspace directory /srv/docwright/data/workspaces/J9abc-1-x7Yz12 already exists and is not empty.',
      'The workspace directory <workspace> already exists and is not empty.',
    ],
    ['cannot write /srv/docwright/data/workspaces: full', 'cannot write <workspaces>: full'],
    ['open /srv/docwright/data/docwright.sqlite failed', 'open <data dir>/docwright.sqlite failed'],
    ['in /srv/docwright/bin and /home/alice/.gitconfig', 'in <cwd>/bin and ~/.gitconfig'],
    ['/srv/docwright', '<cwd>'],
  ])('%s', (input, expected) => {
    expect(scrub(input)).toBe(expected);
  });

  test('longer names, URLs and relative paths are left alone', () => {
    for (const text of ['/srv/docwright-old/x', '/home/alicea/x', 'https://example.com/srv/docwright/x', 'see srv/docwright/data', 'file:///home/alice/x']) {
      expect(scrub(text)).toBe(text);
    }
  });

  test("the job's own repository path is kept even inside home", () => {
    const repository = '/home/alice/src/acme-docs';
    expect(scrub(`fatal: '${repository}' does not appear to be a git repository (looked in /home/alice/src)`, [repository])).toBe(
      "fatal: '/home/alice/src/acme-docs' does not appear to be a git repository (looked in ~/src)",
    );
  });

  test('a root working directory or home is never treated as a server path', () => {
    expect(createServerPathScrubber({ ...places, cwd: '/', home: '/' })('/etc/hosts and /srv/docwright/data')).toBe('/etc/hosts and <data dir>');
  });

  describe('through a symlink', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'docwright-paths-'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    test('the resolved spelling of a configured path is replaced too', () => {
      mkdirSync(join(root, 'real', 'workspaces'), { recursive: true });
      symlinkSync(join(root, 'real'), join(root, 'data'));
      const viaLink = createServerPathScrubber({
        dataDir: join(root, 'data'),
        workspacesDir: join(root, 'data', 'workspaces'),
        cwd: '/nonexistent',
        home: '/nonexistent',
      });
      expect(viaLink(`error in ${join(root, 'real', 'workspaces', 'J-1-a')}/x and ${join(root, 'data', 'secret')}`)).toBe(
        'error in <workspace>/x and <data dir>/secret',
      );
    });
  });
});
