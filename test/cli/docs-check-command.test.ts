import { afterEach, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { SiteFixture } from '../docs-site/site-fixture.js';
import { fixtureGit } from '../git/git-fixtures.js';

let fixture: SiteFixture | undefined;
afterEach(() => fixture?.remove());

function site(): SiteFixture {
  return new SiteFixture({
    'README.md': '# Monorepo\n\n[not checked](/nowhere)\n',
    'docs/docs.json': JSON.stringify({ name: 'Acme', navigation: { pages: ['index', 'guides/a'] } }, null, 2),
    'docs/index.mdx': '# Home\n\n[a](/guides/a) [old](/old-break)\n',
    'docs/guides/a.mdx': '# A\n',
  });
}

describe('docwright docs check', () => {
  test('--json against --base marks only what the working tree introduced as new, and exits 1', async () => {
    fixture = site();
    fixture.put('docs/guides/a.mdx', '# A\n\n[fresh](/fresh-break)\n');
    const result = await runCliIn(fixture.directory, ['docs', 'check', 'docs', '--base', 'main', '--json']);
    // stderr carries only progress; stdout is exactly one JSON document.
    expect(result.stderr).not.toContain('docwright:');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      pagesChecked: 2,
      problems: [
        { file: 'guides/a.mdx', line: 3, code: 'broken-link', message: 'Link "/fresh-break" does not point to an existing page or file.', new: true },
        { file: 'index.mdx', line: 3, code: 'broken-link', message: 'Link "/old-break" does not point to an existing page or file.', new: false },
      ],
    });
  }, 60_000);

  test('only pre-existing problems: human output counts them and exits 0', async () => {
    fixture = site();
    const result = await runCliIn(fixture.directory, ['docs', 'check', 'docs', '--base', 'main']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'Checked 2 pages against main (' +
        fixtureGit(fixture.directory, 'rev-parse', 'main').slice(0, 12) +
        ').\nNo new problems.\n\n1 pre-existing problem already on main (1 broken-link); --show-existing lists them.\n',
    );
  }, 60_000);

  test('without --base every problem counts, and a usage error exits 2', async () => {
    fixture = site();
    const result = await runCliIn(fixture.directory, ['docs', 'check', 'docs']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 problem:\n  index.mdx:3  broken-link  Link "/old-break" does not point to an existing page or file.\n');
    const badRef = await runCliIn(fixture.directory, ['docs', 'check', 'docs', '--base', 'no-such-branch']);
    expect(badRef.code).toBe(2);
    expect(badRef.stderr).toContain('--base no-such-branch is not a commit of this repository');
    const missing = await runCliIn(fixture.directory, ['docs', 'check', 'nowhere']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere does not exist');
  }, 60_000);

  test('--help documents the command', async () => {
    const help = await runCli(['docs', 'check', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--base <ref>');
    expect(help.stdout).toContain('--json');
  });
});

/** Runs the CLI with its working directory in the repository, as CI would. */
function runCliIn(directory: string, args: string[]): ReturnType<typeof runCli> {
  return runCli(args, {}, { timeoutMs: 60_000, cwd: directory });
}
