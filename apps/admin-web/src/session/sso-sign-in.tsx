import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/api-client';
import { ApiError } from '../api/api-error';
import { restoreSession, session } from './session.state';

const CODE_FRAGMENT = /^#code=([A-Za-z0-9_-]{1,128})$/;

/**
 * After the IdP: the control plane sent the browser back with `#code=<one-time code>` (never a
 * token in a URL). The code leaves the address bar at once, then becomes the cookie session;
 * without one, the usual session restore.
 */
export async function startSession(): Promise<void> {
  const code = CODE_FRAGMENT.exec(window.location.hash)?.[1];
  if (code === undefined) return restoreSession();
  history.replaceState(history.state, '', window.location.pathname + window.location.search);
  try {
    await api.exchangeSsoCode(code);
  } catch (error) {
    session.value = { status: 'signed-out', message: error instanceof ApiError && error.code === 'SAML_REJECTED' ? 'The single sign-on did not complete. Try again.' : 'The gateway could not be reached. Check your connection.' };
    return;
  }
  await restoreSession();
}

/** "Sign in with SSO", shown only when the gateway offers it (GET /api/auth/methods). */
export function SsoSignInButton() {
  const [offered, setOffered] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    api.authMethods().then(
      (methods) => setOffered(methods.sso.enabled),
      () => setOffered(false),
    );
  }, []);

  async function start(): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      // Back to this very page after the IdP: a same-origin path, which the control plane accepts.
      window.location.assign(await api.startSso(window.location.pathname + window.location.search));
    } catch {
      setBusy(false);
      setError('Single sign-on could not be started. Try again.');
    }
  }

  if (!offered) return null;
  return (
    <div class="sso-sign-in">
      <p class="divider">or</p>
      <button type="button" onClick={start} disabled={busy} aria-describedby={error === undefined ? undefined : 'sso-error'}>
        {busy ? 'Redirecting…' : 'Sign in with SSO'}
      </button>
      {error !== undefined && (
        <p id="sso-error" class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
