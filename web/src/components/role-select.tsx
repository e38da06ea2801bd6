import { loadSession, useSession } from '../api/session-store';
import type { Role, User } from '../api/types';
import { usersApi } from '../api/users-api';
import { useSubmission } from '../hooks/use-submission';
import { ErrorMessage } from './error-message';

/** A user's role in the users table, changed in place (PATCH /v1/users/{id}); the server refuses to demote the only admin. */
export function RoleSelect({ user, onChanged }: { user: User; onChanged: (user: User) => void }) {
  const session = useSession();
  const { busy, error, run } = useSubmission();
  const change = async (select: HTMLSelectElement) => {
    const outcome = { changed: false };
    await run(async () => {
      onChanged(await usersApi.setRole(user.id, select.value as Role));
      outcome.changed = true;
      // Your own role changed: the navigation and the pages you may open follow.
      if (session.status === 'ready' && session.user?.id === user.id) await loadSession();
    });
    // Refused (the only admin, say): show the role the user still has.
    if (!outcome.changed) select.value = user.role;
  };
  return (
    <div>
      <select aria-label={`Role of ${user.email}`} value={user.role} disabled={busy} onChange={(event) => void change(event.currentTarget)}>
        <option value="member">member</option>
        <option value="admin">admin</option>
      </select>
      {error && <ErrorMessage error={error} title="The role was not changed" />}
    </div>
  );
}
