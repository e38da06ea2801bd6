import { useState } from 'preact/hooks';
import { copyText } from '../lib/clipboard';

interface Props {
  text: string;
  /** Names what is copied for screen readers, e.g. "project id". */
  label: string;
  class?: string;
}

export function CopyButton({ text, label, class: className = '' }: Props) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    const ok = await copyText(text);
    setState(ok ? 'copied' : 'failed');
    setTimeout(() => setState('idle'), 2_000);
  };
  return (
    <button type="button" class={`btn btn-small btn-copy ${className}`} onClick={copy} aria-label={`Copy ${label}`}>
      <svg aria-hidden="true" width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" stroke-width="1.6">
        {state === 'copied' ? (
          <path d="M3 8.5l3 3 7-7" />
        ) : (
          <path d="M5.5 5.5V3a1 1 0 0 1 1-1H13a1 1 0 0 1 1 1v6.5a1 1 0 0 1-1 1h-2.5M3 5.5h6.5a1 1 0 0 1 1 1V13a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1V6.5a1 1 0 0 1 1-1z" />
        )}
      </svg>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </button>
  );
}
