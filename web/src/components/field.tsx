import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface Props {
  label: string;
  hint?: ComponentChildren;
  error?: string | undefined;
  /** Receives the control's id and the ids that describe it (hint, error). */
  children: (id: string, describedBy: string | undefined, invalid: boolean) => ComponentChildren;
}

/** A labelled form control with its hint and inline error wired up for assistive technology. */
export function Field({ label, hint, error, children }: Props) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children(id, describedBy, Boolean(error))}
      {hint && (
        <p class="field-hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
