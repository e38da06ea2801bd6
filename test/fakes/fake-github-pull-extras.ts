import type { FakePullRequest, FakeResponse, RecordedRequest } from './fake-github-server.js';

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/**
 * The fake GitHub's review controls of a pull request, as GitHub answers them:
 * POST /repos/{o}/{r}/pulls/{n}/requested_reviewers ({reviewers, team_reviewers}; 201 with
 * the pull request; 422 for a user who is not a collaborator) and POST
 * /repos/{o}/{r}/issues/{n}/labels ({labels}; 200 with the labels, created as needed).
 */
export function handlePullExtras(
  request: RecordedRequest,
  pull: FakePullRequest,
  collaborators: readonly string[] | undefined,
  validationFailed: (errors: unknown[]) => FakeResponse,
): FakeResponse {
  const body = (request.body ?? {}) as Record<string, unknown>;
  if (request.path.endsWith('/requested_reviewers')) {
    const reviewers = strings(body.reviewers);
    const teams = strings(body.team_reviewers);
    if (reviewers.some((login) => collaborators !== undefined && !collaborators.includes(login))) {
      return validationFailed([
        {
          resource: 'PullRequest',
          code: 'custom',
          message: 'Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the repository.',
        },
      ]);
    }
    // Requesting someone already requested changes nothing.
    const requested = pull.requested_reviewers as Array<{ login: string }>;
    const requestedTeams = pull.requested_teams as Array<{ slug: string }>;
    for (const login of reviewers) if (!requested.some((user) => user.login === login)) requested.push({ login, type: 'User' } as { login: string });
    for (const slug of teams) if (!requestedTeams.some((team) => team.slug === slug)) requestedTeams.push({ slug, name: slug } as { slug: string });
    return { status: 201, body: pull };
  }
  const labels = pull.labels as Array<{ name: string }>;
  for (const label of strings(body.labels)) if (!labels.some((existing) => existing.name === label)) labels.push({ name: label });
  return { status: 200, body: labels };
}

/** A stable stand-in commit id when no real repository backs the fake. */
export function fakeSha(seed: string): string {
  let hash = 0n;
  for (const character of seed) hash = (hash * 131n + BigInt(character.codePointAt(0) ?? 0)) % 2n ** 160n;
  return hash.toString(16).padStart(40, '0');
}

export const ownerAndName = (fullName: string): [string, string] => {
  const [owner = '', name = ''] = fullName.split('/');
  return [owner, name];
};
