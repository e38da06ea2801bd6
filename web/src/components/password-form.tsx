import { useState } from 'preact/hooks';
import { changePassword } from '../api/session-store';
import { useSubmission } from '../hooks/use-submission';
import { ErrorMessage } from './error-message';
import { Field } from './field';

const MIN_PASSWORD = 10;

interface Props {
  /** "Current password", or "Temporary password" after an admin's reset. */
  currentLabel: string;
  submitLabel: string;
  onChanged: () => void;
}

/** The current password and a new one twice: POST /v1/session/password. */
export function PasswordForm({ currentLabel, submitLabel, onChanged }: Props) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [touched, setTouched] = useState(false);
  const { busy, error, run } = useSubmission();
  const fields = error?.fieldErrors() ?? {};
  const nextError = touched && next.length < MIN_PASSWORD ? `At least ${MIN_PASSWORD} characters.` : undefined;
  const againError = touched && again !== next ? 'The new passwords differ.' : undefined;

  const submit = async (event: Event) => {
    event.preventDefault();
    setTouched(true);
    if (current === '' || next.length < MIN_PASSWORD || again !== next) return;
    await run(async () => {
      await changePassword(current, next);
      setCurrent('');
      setNext('');
      setAgain('');
      setTouched(false);
      onChanged();
    });
  };

  const input = (value: string, set: (value: string) => void, autoComplete: string) => (id: string, describedBy: string | undefined, invalid: boolean) => (
    <input
      id={id}
      type="password"
      autoComplete={autoComplete}
      required
      value={value}
      aria-invalid={invalid}
      aria-describedby={describedBy}
      onInput={(event) => set(event.currentTarget.value)}
    />
  );
  return (
    <form onSubmit={submit} noValidate>
      <Field label={currentLabel} error={fields.currentPassword}>
        {input(current, setCurrent, 'current-password')}
      </Field>
      <Field label="New password" hint={`${MIN_PASSWORD} to 1,000 characters.`} error={nextError ?? fields.newPassword}>
        {input(next, setNext, 'new-password')}
      </Field>
      <Field label="Repeat the new password" error={againError}>
        {input(again, setAgain, 'new-password')}
      </Field>
      {error && <ErrorMessage error={error} title="The password was not changed" />}
      <button type="submit" class="btn btn-primary" disabled={busy}>
        {busy ? 'Saving…' : submitLabel}
      </button>
    </form>
  );
}
