import type { FakePullRequest, FakeResponse, RecordedRequest } from './fake-github-server.js';

export interface FakeGraphqlSettings {
  /** The repository setting "Allow auto-merge"; default true. */
  autoMergeAllowed?: boolean;
  /**
   * Whether the base branch requires checks or reviews that are still pending; default true.
   * Without, GitHub refuses auto-merge because the pull request is in "clean status".
   */
  requirementsPending?: boolean;
  now: () => number;
}

const MERGE_METHODS = ['MERGE', 'SQUASH', 'REBASE'];

/** A GraphQL answer: always HTTP 200, problems in `errors` beside a null field, as GitHub does. */
const refused = (type: string, message: string): FakeResponse => ({
  status: 200,
  body: { data: { enablePullRequestAutoMerge: null }, errors: [{ type, path: ['enablePullRequestAutoMerge'], locations: [{ line: 2, column: 3 }], message }] },
});

/**
 * POST /graphql of the fake GitHub: the one mutation Docwright sends,
 * `enablePullRequestAutoMerge(input: {pullRequestId, mergeMethod})`, with its arguments
 * taken from the operation's variables as GitHub's executor takes them. The pull request is
 * found by its `node_id`; a repository that does not allow auto-merge, a draft, and a pull
 * request with nothing pending are refused with GitHub's messages.
 */
export function handleGraphql(request: RecordedRequest, pulls: readonly FakePullRequest[], settings: FakeGraphqlSettings, login: string): FakeResponse {
  const body = (request.body ?? {}) as { query?: unknown; variables?: unknown };
  if (typeof body.query !== 'string') return { status: 400, body: { message: 'Body should be a JSON object with a "query" key' } };
  const variables = (typeof body.variables === 'object' && body.variables !== null ? body.variables : {}) as Record<string, unknown>;
  if (!/^\s*mutation\b/.test(body.query) || !/enablePullRequestAutoMerge\s*\(\s*input\s*:/.test(body.query)) {
    return { status: 200, body: { errors: [{ message: 'This fake GitHub answers only the enablePullRequestAutoMerge mutation.' }] } };
  }
  // The operation must declare and pass its variables the way the schema types them.
  for (const [name, type] of [
    ['pullRequestId', 'ID!'],
    ['mergeMethod', 'PullRequestMergeMethod'],
  ] as const) {
    const declared = new RegExp(`\\$${name}\\s*:\\s*${type.replace('!', '\\!')}`).test(body.query);
    const used = new RegExp(`${name}\\s*:\\s*\\$${name}\\b`).test(body.query);
    if (!declared || !used) return { status: 200, body: { errors: [{ message: `Variable $${name} is not declared as ${type} and passed to the input` }] } };
  }
  const id = variables.pullRequestId;
  if (typeof id !== 'string') return { status: 200, body: { errors: [{ message: 'Variable $pullRequestId of type ID! was provided invalid value' }] } };
  const method = variables.mergeMethod;
  if (method !== undefined && method !== null && (typeof method !== 'string' || !MERGE_METHODS.includes(method))) {
    return { status: 200, body: { errors: [{ message: 'Variable $mergeMethod of type PullRequestMergeMethod was provided invalid value' }] } };
  }
  const pull = pulls.find((candidate) => candidate.node_id === id);
  if (!pull) return refused('NOT_FOUND', `Could not resolve to a node with the global id of '${id}'`);
  if (settings.autoMergeAllowed === false) return refused('UNPROCESSABLE', 'Pull request Auto merge is not allowed for this repository');
  if (pull.state !== 'open') return refused('UNPROCESSABLE', 'Pull request is closed');
  if (pull.draft === true) return refused('UNPROCESSABLE', 'Pull request is in draft state');
  if (settings.requirementsPending === false) return refused('UNPROCESSABLE', 'Pull request is in clean status');
  const mergeMethod = typeof method === 'string' ? method : 'MERGE';
  const enabledAt = new Date(settings.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  pull.auto_merge = { enabled_by: { login }, merge_method: mergeMethod.toLowerCase(), commit_title: null, commit_message: null };
  return {
    status: 200,
    body: { data: { enablePullRequestAutoMerge: { pullRequest: { number: pull.number, autoMergeRequest: { mergeMethod, enabledAt } } } } },
  };
}
