import type { ComponentChildren } from 'preact';
import { CopyButton } from './copy-button';

interface Props {
  /** Heading of the card, e.g. "Your new admin key". */
  title: string;
  secret: string;
  /** What is copied, for screen readers ("API key", "signing secret"). */
  label: string;
  testId: string;
  /** Why this is the only time it is shown, and what to do with it. */
  children: ComponentChildren;
  onDone: () => void;
}

/** A credential the server shows once: the warning, the value with a copy button, and a way to dismiss it. */
export function SecretCard({ title, secret, label, testId, children, onDone }: Props) {
  const headingId = `${testId}-heading`;
  return (
    <section class="card secret-card" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <div class="alert alert-warning" role="note">
        {children}
      </div>
      <div class="copy-row">
        <code class="copy-value secret-value" data-testid={testId}>
          {secret}
        </code>
        <CopyButton text={secret} label={label} />
      </div>
      <button type="button" class="btn" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
