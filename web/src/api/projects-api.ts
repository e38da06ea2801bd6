import { api, enc } from './client';
import type { ApiKeyInfo, CreatedKey, ForgeKind, KeyScope, Project, ProjectSettings } from './types';

export interface NewProject {
  name: string;
  repository: string;
  ref?: string;
  forge?: ForgeKind;
  forgeToken?: string;
  settings?: ProjectSettings;
}

/** A settings change: given keys replace, null removes a setting (the server default applies), absent keys stay. */
export type SettingsPatch = { [K in keyof ProjectSettings]?: ProjectSettings[K] | null };

export interface ProjectPatch {
  name?: string;
  ref?: string;
  forgeToken?: string;
  settings?: SettingsPatch;
}

// Pages switch tabs within a project often; the last answer shows at once while a fresh one loads.
const cache = new Map<string, Project>();

export function cachedProject(projectId: string): Project | undefined {
  return cache.get(projectId);
}

function remember(project: Project): Project {
  cache.set(project.id, project);
  return project;
}

export const projectsApi = {
  list: async (signal?: AbortSignal) => {
    const { projects } = await api.get<{ projects: Project[] }>('/v1/projects', { signal });
    for (const project of projects) remember(project);
    return projects;
  },
  get: async (projectId: string, signal?: AbortSignal) => remember(await api.get<Project>(`/v1/projects/${enc(projectId)}`, { signal })),
  create: async (input: NewProject) => remember(await api.post<Project>('/v1/projects', input)),
  update: async (projectId: string, patch: ProjectPatch) => remember(await api.patch<Project>(`/v1/projects/${enc(projectId)}`, patch)),
  remove: async (projectId: string, confirmName: string) => {
    await api.delete(`/v1/projects/${enc(projectId)}`, { confirmName });
    cache.delete(projectId);
  },
  keys: async (projectId: string, signal?: AbortSignal) => (await api.get<{ keys: ApiKeyInfo[] }>(`/v1/projects/${enc(projectId)}/keys`, { signal })).keys,
  createKey: (projectId: string, input: { scope: KeyScope; name: string; expiresAt?: string }) =>
    api.post<CreatedKey>(`/v1/projects/${enc(projectId)}/keys`, input),
  revokeKey: (projectId: string, keyId: string) => api.delete(`/v1/projects/${enc(projectId)}/keys/${enc(keyId)}`),
};
