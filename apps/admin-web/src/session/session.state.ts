import { signal } from '@preact/signals';
import { api } from '../api/api-client';
import { ApiError } from '../api/api-error';
import type { SessionUser } from '../api/api-types';
import { clearQueryCache } from '../api/query-cache';

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out'; message?: string }
  | { status: 'signed-in'; user: SessionUser };

/** Who is signed in. The token itself stays in an HttpOnly cookie the page cannot read. */
export const session = signal<SessionState>({ status: 'loading' });

api.onUnauthorized = () => {
  clearQueryCache();
  session.value = { status: 'signed-out', message: 'Your session has expired. Sign in again.' };
};

/** On load: a reload or a new tab keeps the session without spending a sign-in. */
export async function restoreSession(): Promise<void> {
  if (!api.mayHaveSession()) {
    session.value = { status: 'signed-out' };
    return;
  }
  try {
    const check = await api.currentSession();
    session.value = check === undefined ? { status: 'signed-out' } : { status: 'signed-in', user: check.user };
  } catch (error) {
    session.value = { status: 'signed-out', message: messageOf(error) };
  }
}

/** Resolves to an error message to show, or undefined once signed in. */
export async function signIn(email: string, password: string): Promise<string | undefined> {
  try {
    await api.login(email, password);
    const check = await api.currentSession();
    if (check === undefined) return 'The session could not be started. Are cookies allowed for this site?';
    session.value = { status: 'signed-in', user: check.user };
    return undefined;
  } catch (error) {
    return messageOf(error);
  }
}

export async function signOut(): Promise<void> {
  let sloUrl: string | undefined;
  try {
    ({ sloUrl } = await api.logout());
  } catch {
    // Signed out locally whatever the server says: the cookie is cleared or already invalid.
  }
  clearQueryCache();
  session.value = { status: 'signed-out', message: 'You have signed out.' };
  // SSO single logout: the IdP ends its session too, then sends the browser back here.
  if (sloUrl !== undefined) window.location.assign(sloUrl);
}

function messageOf(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Try again.';
  switch (error.code) {
    case 'INVALID_CREDENTIALS':
      return 'The email or password is not correct.';
    case 'RATE_LIMITED':
      return 'Too many sign-in attempts. Wait a few minutes and try again.';
    case 'NETWORK_ERROR':
      return 'The gateway could not be reached. Check your connection.';
    default:
      return error.message;
  }
}
