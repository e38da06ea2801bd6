import { api, enc } from './client';
import type { PasswordReset, Role, User } from './types';

export const usersApi = {
  list: async (signal?: AbortSignal) => (await api.get<{ users: User[] }>('/v1/users', { signal })).users,
  create: (input: { email: string; password: string; role: Role }) => api.post<User>('/v1/users', input),
  remove: (userId: string) => api.delete(`/v1/users/${enc(userId)}`),
  setRole: (userId: string, role: Role) => api.patch<User>(`/v1/users/${enc(userId)}`, { role }),
  resetPassword: (userId: string) => api.post<PasswordReset>(`/v1/users/${enc(userId)}/password-reset`),
};
