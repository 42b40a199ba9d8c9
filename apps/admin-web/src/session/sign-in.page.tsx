import { useState } from 'preact/hooks';
import { signIn } from './session.state';
import { SsoSignInButton } from './sso-sign-in';
import { useFocusHeading } from '../layout/use-focus-heading';

/** Email and password (decision 20); the message of a failed attempt is announced. */
export function SignInPage({ notice }: { notice?: string | undefined }) {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const heading = useFocusHeading();

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    const failure = await signIn(String(form.get('email') ?? ''), String(form.get('password') ?? ''));
    setBusy(false);
    if (failure !== undefined) setError(failure);
  }

  return (
    <main class="sign-in">
      <h1 ref={heading} tabIndex={-1}>
        Sign in to the gateway
      </h1>
      {notice !== undefined && error === undefined && <p class="notice" role="status">{notice}</p>}
      <form onSubmit={submit} aria-describedby={error === undefined ? undefined : 'sign-in-error'}>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        {error !== undefined && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <SsoSignInButton />
    </main>
  );
}
