import { api, enc, query } from './client';
import type { AgentErrorsReport, AgentsReport, DailyReport, PagesReport, TrafficReport, VisitorsReport } from './types';

export type VisitorsSort = 'total' | 'human' | 'ai' | 'path';
export type SortOrder = 'asc' | 'desc';

const base = (projectId: string) => `/v1/analytics/${enc(projectId)}`;

export const analyticsApi = {
  visitors: (
    projectId: string,
    params: { dateFrom: string; dateTo: string; limit: number; offset?: number; sort?: VisitorsSort; order?: SortOrder },
    signal?: AbortSignal,
  ) => api.get<VisitorsReport>(`${base(projectId)}/visitors${query(params)}`, { signal }),
  daily: (projectId: string, params: { dateFrom: string; dateTo: string }, signal?: AbortSignal) =>
    api.get<DailyReport>(`${base(projectId)}/visitors/daily${query(params)}`, { signal }),
  traffic: (projectId: string, params: { dateFrom: string; dateTo: string }, signal?: AbortSignal) =>
    api.get<TrafficReport>(`${base(projectId)}/traffic${query(params)}`, { signal }),
  agents: (projectId: string, params: { dateFrom: string; dateTo: string; limit: number }, signal?: AbortSignal) =>
    api.get<AgentsReport>(`${base(projectId)}/agents${query(params)}`, { signal }),
  pages: (projectId: string, params: { dateFrom: string; dateTo: string; limit: number; sort?: 'aiReaders' | 'agentSkew' }, signal?: AbortSignal) =>
    api.get<PagesReport>(`${base(projectId)}/pages${query(params)}`, { signal }),
  agentErrors: (projectId: string, params: { dateFrom: string; dateTo: string; limit: number }, signal?: AbortSignal) =>
    api.get<AgentErrorsReport>(`${base(projectId)}/agent-errors${query(params)}`, { signal }),
};
