import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { completeSetup } from '../api/session-store';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useSubmission } from '../hooks/use-submission';

const MIN_PASSWORD = 10;

/** First run: the one-time setup token from the server log creates the first admin. */
export function SetupPage() {
  useDocumentTitle('Set up Docwright');
  const location = useLocation();
  const [token, setToken] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const { busy, error, run } = useSubmission();
  const [touched, setTouched] = useState(false);

  const passwordError = touched && password.length < MIN_PASSWORD ? `At least ${MIN_PASSWORD} characters.` : undefined;
  const confirmError = touched && confirm !== password ? 'The passwords differ.' : undefined;
  const fields = error?.fieldErrors() ?? {};

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    if (password.length < MIN_PASSWORD || confirm !== password || token.trim() === '' || email.trim() === '') return;
    await run(
      async () => {
        await completeSetup(token.trim(), email.trim(), password);
        location.route('/', true);
      },
      { keepBusy: true },
    );
  };

  return (
    <div class="auth-page">
      <div class="card auth-card">
        <h1>Welcome to Docwright</h1>
        <p>
          Create the first administrator. Docwright prints a one-time <strong>setup token</strong> in its log when it starts without any user (the output of{' '}
          <code>docwright serve</code> or <code>npm start</code>).
        </p>
        <form onSubmit={submit} noValidate>
          <Field label="Setup token" error={fields.setupToken}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                type="text"
                autoComplete="off"
                spellcheck={false}
                required
                value={token}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setToken(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Your email" error={fields.email}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                type="email"
                autoComplete="username"
                required
                value={email}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setEmail(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Password" hint={`${MIN_PASSWORD} to 1,000 characters.`} error={passwordError ?? fields.password}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                type="password"
                autoComplete="new-password"
                required
                minLength={MIN_PASSWORD}
                value={password}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setPassword(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Repeat the password" error={confirmError}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                type="password"
                autoComplete="new-password"
                required
                value={confirm}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setConfirm(event.currentTarget.value)}
              />
            )}
          </Field>
          {error && <ErrorMessage error={error} title="Setup failed" />}
          <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
            {busy ? 'Creating…' : 'Create admin and sign in'}
          </button>
        </form>
      </div>
    </div>
  );
}
