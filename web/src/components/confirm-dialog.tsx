import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useSubmission } from '../hooks/use-submission';
import { Dialog } from './dialog';
import { ErrorMessage } from './error-message';
import { Field } from './field';

interface Props {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  /** When set, the user must type this exact text before confirming (deleting a project). */
  typeToConfirm?: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

/** Asks before a destructive action, runs it, and keeps the dialog open with the error if it fails. */
export function ConfirmDialog({ open, title, children, confirmLabel, danger, typeToConfirm, onConfirm, onClose }: Props) {
  const [typed, setTyped] = useState('');
  const { busy, error, setError, run } = useSubmission();
  const ready = typeToConfirm === undefined || typed === typeToConfirm;
  const close = () => {
    setTyped('');
    setError(null);
    onClose();
  };
  const confirm = async (event: Event) => {
    event.preventDefault();
    if (!ready || busy) return;
    await run(async () => {
      await onConfirm();
      setTyped('');
      onClose();
    });
  };
  return (
    <Dialog open={open} title={title} onClose={close}>
      <form onSubmit={confirm}>
        <div class="dialog-text">{children}</div>
        {typeToConfirm !== undefined && (
          <Field label={`Type “${typeToConfirm}” to confirm`}>
            {(id) => <input id={id} type="text" value={typed} autoComplete="off" spellcheck={false} onInput={(event) => setTyped(event.currentTarget.value)} />}
          </Field>
        )}
        {error && <ErrorMessage error={error} title={`${confirmLabel} failed`} />}
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" class={`btn ${danger ? 'btn-danger' : 'btn-primary'}`} disabled={!ready || busy} aria-busy={busy}>
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
