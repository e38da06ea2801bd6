import { api, enc, query } from './client';
import type { PullRequest } from './types';

const path = (projectId: string, number: string) => `/v1/projects/${enc(projectId)}/pulls/${enc(number)}`;

export const pullsApi = {
  /** With the share token from prLink, or as the signed-in user. */
  get: (projectId: string, number: string, token: string | undefined, signal?: AbortSignal) =>
    api.get<PullRequest>(`${path(projectId, number)}${query({ token })}`, { signal, ignoreUnauthorized: true }),
  /** Merges `headCommit`, the head the page showed; a branch that moved since answers 409 head_moved. */
  merge: (projectId: string, number: string, headCommit: string) => api.post<PullRequest>(`${path(projectId, number)}/merge`, { headCommit }),
  close: (projectId: string, number: string) => api.post<PullRequest>(`${path(projectId, number)}/close`),
};
