import type { SessionUser } from '../api/api-types';
import { useFocusHeading } from '../layout/use-focus-heading';
import { signOut } from './session.state';

/** A signed-in user without the admin role: every management endpoint would answer them 403. */
export function AdminRoleRequiredPage({ user }: { user: SessionUser }) {
  const heading = useFocusHeading();
  return (
    <main class="sign-in">
      <h1 ref={heading} tabIndex={-1}>
        The admin UI needs the admin role
      </h1>
      <p>
        You are signed in as <strong>{user.email}</strong> with the role <strong>{user.role}</strong>. Ask an administrator
        for the admin role, or sign in with another account.
      </p>
      <button type="button" onClick={() => void signOut()}>
        Sign out
      </button>
    </main>
  );
}
