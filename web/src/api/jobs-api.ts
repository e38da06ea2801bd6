import { api, enc, query } from './client';
import type { Job, JobControls, JobList, JobStatus, Turn } from './types';

const base = (projectId: string) => `/v2/agent/${enc(projectId)}`;

export const jobsApi = {
  list: (projectId: string, params: { status?: JobStatus | undefined; limit?: number; offset?: number }, signal?: AbortSignal) =>
    api.get<JobList>(`${base(projectId)}/jobs${query({ status: params.status, limit: params.limit, offset: params.offset })}`, { signal }),
  get: (projectId: string, jobId: string, signal?: AbortSignal) => api.get<Job>(`${base(projectId)}/job/${enc(jobId)}`, { signal }),
  create: (projectId: string, prompt: string, controls: JobControls = {}) => api.post<Job>(`${base(projectId)}/job`, { prompt, ...controls }),
  messages: async (projectId: string, jobId: string, signal?: AbortSignal) =>
    (await api.get<{ messages: Turn[] }>(`${base(projectId)}/job/${enc(jobId)}/messages`, { signal })).messages,
  followUp: (projectId: string, jobId: string, prompt: string) => api.post<Job>(`${base(projectId)}/job/${enc(jobId)}/message`, { prompt }),
  archive: (projectId: string, jobId: string) => api.post<Job>(`${base(projectId)}/job/${enc(jobId)}/archive`),
  projectEventsUrl: (projectId: string) => `${base(projectId)}/jobs/events`,
  jobEventsUrl: (projectId: string, jobId: string) => `${base(projectId)}/job/${enc(jobId)}/events`,
};

const firstPrompts = new Map<string, string>();

/** The first prompt of a job (the job object has none); it never changes, so it is cached. */
export async function firstPrompt(projectId: string, jobId: string): Promise<string | null> {
  const known = firstPrompts.get(jobId);
  if (known !== undefined) return known;
  const turns = await jobsApi.messages(projectId, jobId);
  const prompt = turns[0]?.prompt ?? null;
  if (prompt !== null) firstPrompts.set(jobId, prompt);
  return prompt;
}

export function rememberFirstPrompt(jobId: string, prompt: string): void {
  firstPrompts.set(jobId, prompt);
}

const LOCAL_PULL = /^\/projects\/[^/]+\/pulls\/\d+$/;

/**
 * Where the dashboard links a prLink. A local-forge link is served by this very server, so
 * its path and token open here even when DOCWRIGHT_PUBLIC_URL names another host.
 */
export function pullRequestHref(prLink: string): { href: string; local: boolean } {
  try {
    const url = new URL(prLink, location.origin);
    if (LOCAL_PULL.test(url.pathname)) return { href: `${url.pathname}${url.search}`, local: true };
  } catch {
    // Not a URL: shown as it is.
  }
  return { href: prLink, local: false };
}
