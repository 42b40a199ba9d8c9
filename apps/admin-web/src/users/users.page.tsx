import { api } from '../api/api-client';
import type { UserAccount, UserRole } from '../api/api-types';
import { useAction } from '../api/use-action';
import { ConfirmButton } from '../layout/confirm-button';
import { ErrorAlert } from '../layout/error-alert';
import { describedBy, FormField } from '../layout/form-field';
import { FormFooter, ListTable } from '../layout/list-table';
import { PaginationNav } from '../layout/pagination-nav';
import { useFocusHeading } from '../layout/use-focus-heading';
import { usePagedList } from '../layout/use-paged-list';
import { session } from '../session/session.state';

const USERS_PER_PAGE = 20;
/** The password policy's length (docs/control-plane.md); the API checks the rest and names the rule. */
const PASSWORD_MIN_LENGTH = 12;

/** /admin/users: create with a role, disable or enable, delete (with confirmation). */
export default function UsersPage() {
  // A change asks for the list again, never patches it from what we sent.
  const list = usePagedList({ prefix: 'users:', perPage: USERS_PER_PAGE, load: ({ limit, offset }) => api.listUsers(limit, offset) });
  const heading = useFocusHeading();
  return (
    <main>
      <h1 ref={heading} tabIndex={-1}>
        Users
      </h1>
      <CreateUserForm onCreated={(user) => list.changed(`Created ${user.email} with the role ${user.role}.`)} />
      <p role="status" class="notice">
        {list.notice}
      </p>
      <ListTable id="user-list" title="All users" noun="users" query={list.query} tableClass="users" columns={['Email', 'Role', 'Created', 'Status', 'Actions']}>
        {(items) =>
          items.map((user) => (
            <UserRow key={user.id} user={user} onChanged={list.changed} />
          ))
        }
      </ListTable>
      <PaginationNav {...list.pages} />
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
  const [state, run] = useAction();
  const self = session.value.status === 'signed-in' && session.value.user.id === user.id;
  async function toggle(): Promise<void> {
    const updated = await run(() => api.setUserDisabled(user.id, !user.disabled));
    if (updated !== undefined) onChanged(`${updated.email} is ${updated.disabled ? 'disabled' : 'enabled'}.`);
  }
  async function remove(): Promise<void> {
    const done = await run(() => api.deleteUser(user.id).then(() => true));
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
          <button type="button" class="secondary" disabled={state.busy || self} onClick={() => void toggle()} aria-label={`${user.disabled ? 'Enable' : 'Disable'} ${user.email}`}>
            {user.disabled ? 'Enable' : 'Disable'}
          </button>
          <ConfirmButton label="Delete" confirmLabel="Confirm delete" accessibleName={`Delete ${user.email}`} busy={state.busy} disabled={self} onConfirm={() => void remove()} />
        </div>
        <ErrorAlert message={state.error} />
      </td>
    </tr>
  );
}
