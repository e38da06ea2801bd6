import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { signIn } from '../api/session-store';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useSubmission } from '../hooks/use-submission';
import { safeNext } from '../lib/safe-next';

export function SignInPage() {
  useDocumentTitle('Sign in');
  const location = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useSubmission();

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(
      async () => {
        await signIn(email.trim(), password);
        location.route(safeNext(location.query.next), true);
      },
      { keepBusy: true },
    );
  };

  return (
    <div class="auth-page">
      <div class="card auth-card">
        <h1>Sign in to Docwright</h1>
        <form onSubmit={submit} noValidate>
          <Field label="Email">
            {(id, describedBy) => (
              <input
                id={id}
                type="email"
                autoComplete="username"
                required
                value={email}
                aria-describedby={describedBy}
                onInput={(event) => setEmail(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Password">
            {(id, describedBy) => (
              <input
                id={id}
                type="password"
                autoComplete="current-password"
                required
                value={password}
                aria-describedby={describedBy}
                onInput={(event) => setPassword(event.currentTarget.value)}
              />
            )}
          </Field>
          {error && <ErrorMessage error={error} title={error.status === 401 ? 'Sign-in failed' : 'Could not sign in'} />}
          <button type="submit" class="btn btn-primary btn-block" disabled={busy || email === '' || password === ''}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <p class="muted small">
          No account yet? An admin adds users on the Users page, or with <code>docwright users create</code>.
        </p>
      </div>
    </div>
  );
}
