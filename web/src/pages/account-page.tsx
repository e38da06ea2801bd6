import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { signOut, signOutEverywhere, useSession } from '../api/session-store';
import { ConfirmDialog } from '../components/confirm-dialog';
import { PasswordForm } from '../components/password-form';
import { notify } from '../components/toast';
import { useDocumentTitle } from '../hooks/use-document-title';

/** The signed-in user's own account; after an admin's reset, only the forced password change. */
export function AccountPage() {
  const session = useSession();
  const user = session.status === 'ready' ? session.user : null;
  if (user?.mustChangePassword) return <ForcedPasswordChange />;
  return <OwnAccount email={user?.email ?? ''} role={user?.role ?? ''} />;
}

function ForcedPasswordChange() {
  useDocumentTitle('Set a new password');
  const location = useLocation();
  const leave = async () => {
    await signOut();
    location.route('/signin', true);
  };
  return (
    <div class="page narrow">
      <h1>Set a new password</h1>
      <div class="alert alert-warning" role="note">
        An admin reset your password. Choose a new one to continue: nothing else works until you do.
      </div>
      <section class="card" aria-label="Choose a new password">
        <PasswordForm
          currentLabel="Temporary password"
          submitLabel="Set password and continue"
          onChanged={() => {
            notify('Password set.');
            location.route('/', true);
          }}
        />
      </section>
      <p>
        <button type="button" class="btn" onClick={() => void leave()}>
          Sign out instead
        </button>
      </p>
    </div>
  );
}

function OwnAccount({ email, role }: { email: string; role: string }) {
  useDocumentTitle('Your account');
  const location = useLocation();
  const [confirming, setConfirming] = useState(false);
  return (
    <div class="page narrow">
      <h1>Your account</h1>
      <p>
        Signed in as <strong>{email}</strong> ({role}).
      </p>
      <div class="stack">
        <section class="card" aria-labelledby="password-heading">
          <h2 id="password-heading">Change your password</h2>
          <PasswordForm
            currentLabel="Current password"
            submitLabel="Change password"
            onChanged={() => notify('Password changed. Your other sessions were signed out.')}
          />
        </section>
        <section class="card" aria-labelledby="everywhere-heading">
          <h2 id="everywhere-heading">Sign out everywhere</h2>
          <p>Ends every session of your account: other browsers and devices, and this one.</p>
          <button type="button" class="btn btn-danger-outline" onClick={() => setConfirming(true)}>
            Sign out everywhere
          </button>
        </section>
      </div>
      <ConfirmDialog
        open={confirming}
        title="Sign out everywhere?"
        confirmLabel="Sign out everywhere"
        danger
        onClose={() => setConfirming(false)}
        onConfirm={async () => {
          await signOutEverywhere();
          location.route('/signin', true);
        }}
      >
        <p>Every browser signed in as {email}, this one included, must sign in again.</p>
      </ConfirmDialog>
    </div>
  );
}
