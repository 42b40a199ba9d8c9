import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, appBase } from '../api/api-client';
import type { UserAccount, UserRole } from '../api/api-types';
import { useQuery, useRevision } from '../api/query-cache';
import { useAction } from '../api/use-action';
import { describedBy, FormField } from '../layout/form-field';
import { FormFooter, ListTable } from '../layout/list-table';
import { useFocusHeading } from '../layout/use-focus-heading';
import { PaginationNav } from '../routes/pagination-nav';
import { session } from '../session/session.state';
import { ErrorAlert } from '../layout/error-alert';

const USERS_PER_PAGE = 20;
/** The password policy's length (docs/control-plane.md); the API checks the rest and names the rule. */
const PASSWORD_MIN_LENGTH = 12;

/** /admin/users: create with a role, disable or enable, delete (with confirmation). */
export default function UsersPage() {
  const location = useLocation();
  const page = Math.max(1, Number.parseInt(location.query['page'] ?? '1', 10) || 1);
  // A change bumps the revision: the list is asked again, never patched from what we sent.
  const [revision, bumpRevision] = useRevision('users:');
  const result = useQuery(`users:${page}:${revision}`, () => api.listUsers(USERS_PER_PAGE, (page - 1) * USERS_PER_PAGE));
  const heading = useFocusHeading();
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const changed = (message: string): void => {
    setNotice(message);
    bumpRevision();
  };
  const total = result.data?.pagination.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / USERS_PER_PAGE));
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Users
      </h1>
      <CreateUserForm onCreated={(user) => changed(`Created ${user.email} with the role ${user.role}.`)} />
      <p role="status" class="notice">
        {notice}
      </p>
      <ListTable id="user-list" title="All users" noun="users" query={result} tableClass="users" columns={['Email', 'Role', 'Created', 'Status', 'Actions']}>
        {(items) =>
          items.map((user) => (
            <UserRow key={user.id} user={user} onChanged={changed} />
          ))
        }
      </ListTable>
      <PaginationNav page={page} pageCount={pageCount} hrefOf={(n) => `${appBase.pathname}users${n > 1 ? `?page=${n}` : ''}`} />
    </main>
  );
}

function CreateUserForm({ onCreated }: { onCreated: (user: UserAccount) => void }) {
  const [state, run] = useAction();
  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const role: UserRole = data.get('role') === 'admin' ? 'admin' : 'user';
    const created = await run(() => api.createUser({ email: String(data.get('email') ?? '').trim(), password: String(data.get('password') ?? ''), role }));
    if (created !== undefined) {
      form.reset();
      onCreated(created);
    }
  }
  const { fieldErrors } = state;
  return (
    <form class="form-grid" onSubmit={(e) => void submit(e)} aria-labelledby="create-user-title">
      <h2 id="create-user-title">Create a user</h2>
      <FormField id="user-email" label="Email" error={fieldErrors['email']}>
        <input id="user-email" name="email" type="email" required maxLength={320} autoComplete="off" {...describedBy('user-email', fieldErrors['email'])} />
      </FormField>
      <FormField id="user-password" label="Password" error={fieldErrors['password']} hint={`At least ${PASSWORD_MIN_LENGTH} characters, not containing the email.`}>
        <input
          id="user-password"
          name="password"
          type="password"
          required
          minLength={PASSWORD_MIN_LENGTH}
          maxLength={1024}
          autoComplete="new-password"
          {...describedBy('user-password', fieldErrors['password'], true)}
        />
      </FormField>
      <FormField id="user-role" label="Role" error={fieldErrors['role']}>
        <select id="user-role" name="role" defaultValue="user" {...describedBy('user-role', fieldErrors['role'])}>
          <option value="user">User (no admin UI, no management API)</option>
          <option value="admin">Admin</option>
        </select>
      </FormField>
      <FormFooter error={state.error} busy={state.busy} label="Create user" busyLabel="Creating…" />
    </form>
  );
}

function UserRow({ user, onChanged }: { user: UserAccount; onChanged: (message: string) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [state, run] = useAction();
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirm.current?.focus();
  }, [confirming]);
  const self = session.value.status === 'signed-in' && session.value.user.id === user.id;
  async function toggle(): Promise<void> {
    const updated = await run(() => api.setUserDisabled(user.id, !user.disabled));
    if (updated !== undefined) onChanged(`${updated.email} is ${updated.disabled ? 'disabled' : 'enabled'}.`);
  }
  async function remove(): Promise<void> {
    const done = await run(() => api.deleteUser(user.id).then(() => true));
    setConfirming(false);
    if (done === true) onChanged(`Deleted ${user.email}.`);
  }
  return (
    <tr data-user={user.email}>
      <td>
        {user.email}
        {self && <span class="notice"> (you)</span>}
      </td>
      <td>{user.role === 'admin' ? 'Admin' : 'User'}</td>
      <td>
        <time dateTime={user.createdAt}>{new Date(user.createdAt).toLocaleString()}</time>
      </td>
      <td>{user.disabled ? 'Disabled' : 'Active'}</td>
      <td>
        <div class="actions">
          {confirming ? (
            <>
              <span>Delete {user.email}?</span>
              <button key="confirm" type="button" class="danger" ref={confirm} disabled={state.busy} onClick={() => void remove()}>
                Confirm delete
              </button>
              <button key="cancel" type="button" class="secondary" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          ) : (
            <>
              <button type="button" class="secondary" disabled={state.busy || self} onClick={() => void toggle()} aria-label={`${user.disabled ? 'Enable' : 'Disable'} ${user.email}`}>
                {user.disabled ? 'Enable' : 'Disable'}
              </button>
              <button type="button" class="danger" disabled={state.busy || self} onClick={() => setConfirming(true)} aria-label={`Delete ${user.email}`}>
                Delete
              </button>
            </>
          )}
        </div>
        <ErrorAlert message={state.error} />
      </td>
    </tr>
  );
}
