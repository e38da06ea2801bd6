import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { git } from '../helpers/docs-repository.js';
import type { FakeModelScript } from '../fakes/fake-model-server.js';

const OTHER_PAGE = 'other-project-private-roadmap';
const OTHER_CONTENT = 'Roadmap: not for this project 7f3a';
const OTHER_CONFIG = `${JSON.stringify({ name: 'Other', navigation: [{ group: 'Other', pages: ['quickstart', OTHER_PAGE] }] }, null, 2)}\n`;

/**
 * Issue 33's finding as a whole job: the repository commits a directory link `b` to
 * another project's checkout and a docs.json of `{"$ref": "b/docs.json"}`; the model
 * checks the docs, looks through the link, moves the quickstart and writes to a file
 * link. The clone holds no links (core.symlinks=false), so nothing of the other project
 * is read or written, and the commit leaves both links exactly as they were.
 */
const script: FakeModelScript = (request) =>
  request.toolRounds === 0
    ? {
        toolCalls: [
          { name: 'check_docs', arguments: {} },
          { name: 'read_file', arguments: { path: 'b/docs.json' } },
          { name: 'list_files', arguments: { pattern: 'b/**' } },
          { name: 'search', arguments: { query: 'Roadmap' } },
          { name: 'move_file', arguments: { from: 'quickstart.mdx', to: 'x.mdx' } },
          { name: 'write_file', arguments: { path: 'latest.mdx', content: '# Latest\n' } },
        ],
      }
    : { text: 'Moved the quickstart.' };

describe.each(BACKENDS)('a repository with committed symbolic links [%s]', (dialect) => {
  let h: JobHarness;
  let other: string;
  afterEach(async () => {
    await h?.close();
    rmSync(other, { recursive: true, force: true });
  });

  test('the job reads and writes nothing through them, and its commit leaves each link as it was', async () => {
    other = mkdtempSync(join(tmpdir(), 'docwright-other-project-'));
    writeFileSync(join(other, 'docs.json'), OTHER_CONFIG);
    writeFileSync(join(other, `${OTHER_PAGE}.mdx`), `# ${OTHER_CONTENT}\n`);
    const otherMtime = statSync(join(other, 'docs.json')).mtimeMs;
    h = await createJobHarness(dialect, script);
    symlinkSync(other, join(h.repository, 'b'));
    symlinkSync('quickstart.mdx', join(h.repository, 'latest.mdx'));
    writeFileSync(join(h.repository, 'docs.json'), JSON.stringify({ $ref: 'b/docs.json' }));
    git(h.repository, 'add', '-A');
    git(h.repository, 'commit', '-q', '-m', 'Links');
    const links = git(h.repository, 'ls-tree', 'main', 'b', 'latest.mdx');
    expect(links).toMatch(/^120000 blob \w+\tb\n120000 blob \w+\tlatest\.mdx$/);

    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Rename the quickstart to x' });
    const done = await h.waitForSettled(created.body.id);
    expect(done.status).toBe('completed');
    const branch = `docwright/${done.id}`;

    expect(readFileSync(join(other, 'docs.json'), 'utf8')).toBe(OTHER_CONFIG);
    expect(statSync(join(other, 'docs.json')).mtimeMs).toBe(otherMtime);
    // Both links are in the commit as they were: same mode, same target.
    expect(git(h.repository, 'ls-tree', branch, 'b', 'latest.mdx')).toBe(links);
    expect(git(h.repository, 'diff', '--no-renames', '--name-status', 'main', branch).split('\n')).toEqual(['M\tindex.mdx', 'D\tquickstart.mdx', 'A\tx.mdx']);

    const conversation = await h.request('GET', `/v2/agent/${h.projectId}/job/${done.id}/messages`);
    const turn = conversation.body.messages[0];
    expect(turn.filesChanged).toEqual(['index.mdx', 'quickstart.mdx', 'x.mdx']);
    // The edit of the checked-out link kept the link's mode in git's index: refused, not committed.
    expect(turn.refusedFiles).toEqual([{ path: 'latest.mdx', reason: expect.stringMatching(/file mode/) }]);
    const pull = await h.services.database.db.selectFrom('local_pull_requests').select('body').executeTakeFirstOrThrow();
    for (const seen of [JSON.stringify(h.model.requests.map((sent) => sent.body)), JSON.stringify(conversation.body), pull.body]) {
      expect(seen).not.toContain(OTHER_PAGE);
      expect(seen).not.toContain(OTHER_CONTENT);
    }
  });
});
