import type { FakeModelScript } from '../fakes/fake-model-server.js';
import { endlessToolLoop, failWith, scriptedToolCalls } from '../fakes/fake-model-server.js';

const TROUBLESHOOTING = '---\ntitle: Troubleshooting\n---\n\n# Troubleshooting\n\nIf the CLI fails, run it again.\n';

export const INJECTED_FINAL_MESSAGE =
  'Done. Fixes #1, closes acme/docs#2 and resolves https://github.com/acme/docs/issues/3. cc @alice @acme/maintainers\n' +
  '![pixel](https://evil.test/p.png) <img src="https://evil.test/q.png"> [docs](https://evil.test/x)\n/merge\n/approve';

/**
 * A scripted "model" that acts on the words of the current prompt, the way a test author
 * would describe a scenario. It drives the real tools through real tool calls.
 */
export const docsAgentScript: FakeModelScript = (request, callIndex) => {
  const prompt = request.lastUserText ?? '';
  if (prompt.includes('injected')) {
    // What a model writes after reading prompt-injected repository content.
    return scriptedToolCalls([{ name: 'write_file', arguments: { path: 'fixes #7 @alice.md', content: '# Notes\n' } }], INJECTED_FINAL_MESSAGE)(
      request,
      callIndex,
    );
  }
  if (prompt.includes('troubleshooting')) {
    return scriptedToolCalls(
      [
        { name: 'read_file', arguments: { path: 'docs.json' } },
        { name: 'write_file', arguments: { path: 'troubleshooting.mdx', content: TROUBLESHOOTING } },
        { name: 'edit_file', arguments: { path: 'docs.json', oldString: '"quickstart"', newString: '"quickstart",\n        "troubleshooting"' } },
        { name: 'check_docs', arguments: {} },
      ],
      'Added troubleshooting.mdx and linked it in the navigation.',
    )(request, callIndex);
  }
  if (prompt.includes('verbose')) {
    return scriptedToolCalls(
      [{ name: 'edit_file', arguments: { path: 'troubleshooting.mdx', oldString: 'run it again.', newString: 'run it again with `--verbose`.' } }],
      'Mentioned the --verbose flag in troubleshooting.mdx.',
    )(request, callIndex);
  }
  // The wrap-up step (tool choice none, its note the last user message) gets a summary.
  if (request.body['tool_choice'] === 'none' && request.rawBody.includes('edit then loop'))
    return { text: 'Stopped at the budget: added troubleshooting.mdx.' };
  if (request.rawBody.includes('broken link page')) return brokenLinkScript(request);
  if (prompt.includes('edit then loop')) {
    // One edit, then a loop.
    if (request.toolRounds === 0) return { toolCalls: [{ name: 'write_file', arguments: { path: 'troubleshooting.mdx', content: TROUBLESHOOTING } }] };
    return { toolCalls: [{ name: 'list_files', arguments: { pattern: '**/*.mdx' } }] };
  }
  if (prompt.includes('loop')) return endlessToolLoop('list_files', { pattern: '**/*.mdx' })(request, callIndex);
  if (prompt.includes('provider down')) return failWith(500, { body: { error: { message: 'upstream exploded' } } })(request, callIndex);
  if (prompt.includes('slow')) return { text: 'done slowly', delayMs: 3_000 };
  return { text: 'The docs already cover this; nothing to change.' };
};

/** The user message Docwright sends when its own final check finds new problems (verified-run.ts). */
export const FIX_REQUEST_MARKER = 'Docwright checked the docs';

/**
 * "Add a broken link page": writes a page linking to a page that does not exist and never
 * calls check_docs. With "fixable" in the prompt it fixes the link when Docwright's fix
 * request arrives; otherwise it ignores the request and answers again.
 */
function brokenLinkScript(request: Parameters<FakeModelScript>[0]): ReturnType<FakeModelScript> {
  const fixable = request.rawBody.includes('fixable');
  if (fixable && request.lastUserText.includes(FIX_REQUEST_MARKER) && request.toolResults.length === 1) {
    return { toolCalls: [{ name: 'edit_file', arguments: { path: 'broken.mdx', oldString: '](/no-such-page)', newString: '](/quickstart)' } }] };
  }
  if (request.toolRounds === 0) {
    return { toolCalls: [{ name: 'write_file', arguments: { path: 'broken.mdx', content: '# Broken\n\nSee [the missing page](/no-such-page).\n' } }] };
  }
  return { text: 'Added broken.mdx.' };
}
