import { useEffect, useState } from 'preact/hooks';
import { api, setCsrfToken } from './client';
import { toApiError, type ApiError } from './api-error';
import type { Session, SessionUser as User, SignedIn } from './types';

export type SessionState =
  | { status: 'loading' }
  | { status: 'error'; error: ApiError }
  /** signedOut: the user just signed out here, so no ?next= back to the page they left. */
  | { status: 'ready'; setupRequired: boolean; user: User | null; signedOut?: boolean };

let state: SessionState = { status: 'loading' };
const listeners = new Set<(next: SessionState) => void>();

function set(next: SessionState): void {
  state = next;
  for (const listener of listeners) listener(next);
}

/** GET /v1/session: who is signed in, whether setup is pending, and the CSRF token. */
export async function loadSession(): Promise<void> {
  try {
    const session = await api.get<Session>('/v1/session', { ignoreUnauthorized: true });
    setCsrfToken(session.csrfToken);
    set({ status: 'ready', setupRequired: session.setupRequired, user: session.user });
  } catch (error) {
    set({ status: 'error', error: toApiError(error) });
  }
}

function signedIn(result: SignedIn): User {
  setCsrfToken(result.csrfToken);
  set({ status: 'ready', setupRequired: false, user: result.user });
  return result.user;
}

export async function signIn(email: string, password: string): Promise<User> {
  return signedIn(await api.post<SignedIn>('/v1/session', { email, password }, { ignoreUnauthorized: true }));
}

export async function completeSetup(setupToken: string, email: string, password: string): Promise<User> {
  return signedIn(await api.post<SignedIn>('/v1/session/setup', { setupToken, email, password }, { ignoreUnauthorized: true }));
}

export async function signOut(): Promise<void> {
  await api.delete('/v1/session', undefined, { ignoreUnauthorized: true });
  // A fresh CSRF token belongs to the signed-out session.
  await loadSession();
  if (state.status === 'ready') set({ ...state, signedOut: true });
}

/** POST /v1/session/password; the other sessions end, this one no longer needs a new password. */
export async function changePassword(currentPassword: string, newPassword: string): Promise<void> {
  await api.post('/v1/session/password', { currentPassword, newPassword });
  if (state.status === 'ready' && state.user) set({ ...state, user: { ...state.user, mustChangePassword: false } });
}

/** Ends every session of the user, this one included; then the page is signed out. */
export async function signOutEverywhere(): Promise<void> {
  await api.delete('/v1/session/everywhere');
  await loadSession();
  if (state.status === 'ready') set({ ...state, signedOut: true });
}

/**
 * The session ended under the page (a 401 from the API): forget the user at once, then ask
 * the server again, which also issues the CSRF token that goes with the new cookie.
 */
export function forgetUser(): void {
  if (state.status === 'ready') set({ ...state, user: null });
  void refreshCsrfToken();
}

/** Re-reads GET /v1/session for its CSRF token, keeping what the page shows about the user. */
export async function refreshCsrfToken(): Promise<void> {
  try {
    const session = await api.get<Session>('/v1/session', { ignoreUnauthorized: true });
    setCsrfToken(session.csrfToken);
  } catch {
    // The write that asked fails with its own error; nothing more to do here.
  }
}

export function currentSession(): SessionState {
  return state;
}

export function useSession(): SessionState {
  const [value, setValue] = useState(state);
  useEffect(() => {
    listeners.add(setValue);
    setValue(state);
    return () => {
      listeners.delete(setValue);
    };
  }, []);
  return value;
}
