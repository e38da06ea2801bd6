import { afterEach, describe, expect, test } from 'vitest';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { scriptedToolCalls } from '../fakes/fake-model-server.js';

/**
 * The case that buried real breakage: a site that already has problems, and an edit that
 * deletes a page 26 others link to. The pull request must list every new broken link,
 * first, and only count the old problems.
 */
const LINKING_PAGES = 26;
const OLD_PROBLEMS = 60;

function siteFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const pages = ['index', 'quickstart', 'guides/target'];
  files['guides/target.mdx'] = '---\ntitle: Target\n---\n\n# Target\n';
  for (let index = 0; index < LINKING_PAGES; index += 1) {
    const page = `guides/linking-${String(index).padStart(2, '0')}`;
    pages.push(page);
    files[`${page}.mdx`] = `# Linking ${index}\n\nSee [the target](/guides/target).\n`;
  }
  for (let index = 0; index < OLD_PROBLEMS; index += 1) {
    const page = `old/page-${String(index).padStart(2, '0')}`;
    pages.push(page);
    files[`${page}.mdx`] = `# Old ${index}\n\nA link that broke long ago: [gone](/removed-long-ago-${index}).\n`;
  }
  files['docs.json'] = JSON.stringify({ name: 'Example', navigation: { groups: [{ group: 'All', pages }] } }, null, 2);
  return files;
}

describe('a job that breaks links on a site with old problems', () => {
  let h: JobHarness;
  afterEach(async () => h?.close());

  test('check_docs, the turn and the pull request list every new broken link first and only count the old problems', async () => {
    const script = scriptedToolCalls(
      [
        { name: 'delete_file', arguments: { path: 'guides/target.mdx' } },
        { name: 'check_docs', arguments: {} },
      ],
      'Deleted the target page.',
    );
    h = await createJobHarness('sqlite', script, {}, siteFiles());
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Delete the target page' });
    const done = await h.waitForSettled(created.body.id, 60_000);
    expect(done.status).toBe('completed');

    // What the model was told after check_docs.
    const toolResult = h.model.requests.flatMap((request) => request.toolResults ?? []).find((result) => result.includes('newProblems'));
    expect(toolResult).toBeDefined();
    const report = JSON.parse(toolResult!) as {
      newProblems: Array<{ path: string; kind: string }>;
      preExisting: { total: number; byKind: Record<string, number> };
    };
    expect(report.newProblems).toHaveLength(LINKING_PAGES + 1);
    expect(report.preExisting).toEqual({ total: OLD_PROBLEMS, byKind: { 'broken-link': OLD_PROBLEMS } });

    const conversation = await h.request('GET', `/v2/agent/${h.projectId}/job/${created.body.id}/messages`);
    const problems = conversation.body.messages[0].problems as Array<{ path: string; new: boolean; message: string }>;
    expect(problems.slice(0, LINKING_PAGES + 1).every((problem) => problem.new)).toBe(true);
    expect(problems.slice(LINKING_PAGES + 1).every((problem) => !problem.new)).toBe(true);

    const [pull] = await h.services.database.db.selectFrom('local_pull_requests').selectAll().execute();
    const body = pull!.body;
    const newSection = body.indexOf(`${LINKING_PAGES + 1} new problems`);
    const oldSummary = body.indexOf(`The base branch already had ${OLD_PROBLEMS} problems (${OLD_PROBLEMS} broken-link)`);
    expect(newSection).toBeGreaterThan(-1);
    expect(oldSummary).toBeGreaterThan(newSection);
    for (let index = 0; index < LINKING_PAGES; index += 1) {
      const at = body.indexOf(`guides/linking-${String(index).padStart(2, '0')}.mdx:3`);
      expect(at).toBeGreaterThan(newSection);
      expect(at).toBeLessThan(oldSummary);
    }
    expect(body).toContain('Navigation page "guides/target" does not exist');
    // No old problem is listed one by one.
    expect(body).not.toContain('removed-long-ago');
  });
});
