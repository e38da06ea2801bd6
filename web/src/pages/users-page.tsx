import { useState } from 'preact/hooks';
import { useSession } from '../api/session-store';
import type { Role, User } from '../api/types';
import { usersApi } from '../api/users-api';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { Loading } from '../components/loading';
import { notify } from '../components/toast';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useResource } from '../hooks/use-resource';
import { RoleSelect } from '../components/role-select';
import { SecretCard } from '../components/secret-card';
import { useSubmission } from '../hooks/use-submission';
import { RelativeTime } from '../components/relative-time';

export function UsersPage() {
  useDocumentTitle('Users');
  const session = useSession();
  const me = session.status === 'ready' ? session.user : null;
  const users = useResource((signal) => usersApi.list(signal), 'users');
  const [removing, setRemoving] = useState<User | null>(null);
  const [resetting, setResetting] = useState<User | null>(null);
  const [temporary, setTemporary] = useState<{ email: string; password: string } | null>(null);
  const replace = (changed: User) => users.setData((previous) => (previous ?? []).map((user) => (user.id === changed.id ? changed : user)));

  if (me && me.role !== 'admin') {
    return (
      <div class="page narrow">
        <h1>Users</h1>
        <p>Only admins manage users.</p>
      </div>
    );
  }
  return (
    <div class="page">
      <div class="page-header">
        <h1>Users</h1>
      </div>
      <div class="stack">
        {temporary && (
          <SecretCard
            title={`Temporary password for ${temporary.email}`}
            secret={temporary.password}
            label="temporary password"
            testId="temporary-password"
            onDone={() => setTemporary(null)}
          >
            Shown once. Give it to {temporary.email} privately: they sign in with it and must then choose a new password. Their sessions have ended.
          </SecretCard>
        )}
        <section class="card" aria-labelledby="add-user-heading">
          <h2 id="add-user-heading">Add a user</h2>
          <NewUserForm onCreated={(user) => users.setData((previous) => [...(previous ?? []), user])} />
        </section>
        <section class="card" aria-labelledby="users-heading">
          <h2 id="users-heading">Everyone with access</h2>
          {users.error && <ErrorMessage error={users.error} title="Could not load the users" onRetry={users.reload} />}
          {users.loading && !users.data && <Loading label="Loading users…" />}
          {users.data && (
            <div class="table-scroll" tabIndex={0} role="region" aria-label="Users">
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Added</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {users.data.map((user) => (
                    <tr key={user.id}>
                      <td>
                        {user.email} {user.id === me?.id && <span class="muted">(you)</span>}
                        {user.mustChangePassword && <span class="muted"> — must set a new password</span>}
                      </td>
                      <td>
                        <RoleSelect user={user} onChanged={replace} />
                      </td>
                      <td>{user.createdAt ? <RelativeTime iso={user.createdAt} /> : '—'}</td>
                      <td class="cell-actions">
                        {user.id !== me?.id && (
                          <>
                            <button type="button" class="btn btn-small" onClick={() => setResetting(user)} aria-label={`Reset password of ${user.email}`}>
                              Reset password
                            </button>{' '}
                            <button
                              type="button"
                              class="btn btn-small btn-danger-outline"
                              onClick={() => setRemoving(user)}
                              aria-label={`Remove ${user.email}`}
                            >
                              Remove
                            </button>
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      </div>
      <ConfirmDialog
        open={resetting !== null}
        title="Reset this user's password?"
        confirmLabel="Reset password"
        danger
        onClose={() => setResetting(null)}
        onConfirm={async () => {
          if (!resetting) return;
          const reset = await usersApi.resetPassword(resetting.id);
          replace(reset.user);
          setTemporary({ email: reset.user.email, password: reset.temporaryPassword });
        }}
      >
        <p>
          <strong>{resetting?.email}</strong> is signed out everywhere. You get a temporary password, shown once, to pass on; with it they must set a new
          password before anything else.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={removing !== null}
        title="Remove this user?"
        confirmLabel="Remove user"
        danger
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          if (!removing) return;
          await usersApi.remove(removing.id);
          users.setData((previous) => (previous ?? []).filter((user) => user.id !== removing.id));
          notify(`${removing.email} removed.`);
        }}
      >
        <p>
          <strong>{removing?.email}</strong> is signed out everywhere and can no longer sign in.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function NewUserForm({ onCreated }: { onCreated: (user: User) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('member');
  const { busy, error, run } = useSubmission();
  const fields = error?.fieldErrors() ?? {};
  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const user = await usersApi.create({ email: email.trim(), password, role });
      onCreated(user);
      notify(`${user.email} added.`);
      setEmail('');
      setPassword('');
    });
  };
  return (
    <form onSubmit={submit} class="inline-form">
      <Field label="Email" error={fields.email}>
        {(id, describedBy, invalid) => (
          <input
            id={id}
            type="email"
            autoComplete="off"
            required
            value={email}
            aria-invalid={invalid}
            aria-describedby={describedBy}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Initial password" hint="10 characters or more; share it privately." error={fields.password}>
        {(id, describedBy, invalid) => (
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            required
            minLength={10}
            value={password}
            aria-invalid={invalid}
            aria-describedby={describedBy}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Role" hint={role === 'admin' ? 'Manages projects, keys and users.' : 'Runs jobs, reads analytics, merges pull requests.'}>
        {(id, describedBy) => (
          <select id={id} value={role} aria-describedby={describedBy} onChange={(event) => setRole(event.currentTarget.value as Role)}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        )}
      </Field>
      <div class="inline-form-submit">
        <button type="submit" class="btn btn-primary" disabled={busy || email.trim() === '' || password.length < 10}>
          {busy ? 'Adding…' : 'Add user'}
        </button>
      </div>
      {error && (
        <div class="inline-form-error">
          <ErrorMessage error={error} title="Could not add the user" />
        </div>
      )}
    </form>
  );
}
