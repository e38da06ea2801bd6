import { CopyButton } from './copy-button';

/** A snippet to paste somewhere else, with its copy button. */
export function CodeBlock({ code, label }: { code: string; label: string }) {
  return (
    <div class="code-block">
      <pre tabIndex={0} aria-label={label}>
        <code>{code}</code>
      </pre>
      <CopyButton text={code} label={label} />
    </div>
  );
}
