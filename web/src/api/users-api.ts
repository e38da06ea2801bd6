import { api, enc } from './client';
import type { Role, User } from './types';

export const usersApi = {
  list: async (signal?: AbortSignal) => (await api.get<{ users: User[] }>('/v1/users', { signal })).users,
  create: (input: { email: string; password: string; role: Role }) => api.post<User>('/v1/users', input),
  remove: (userId: string) => api.delete(`/v1/users/${enc(userId)}`),
};
