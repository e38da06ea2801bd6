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
      <span aria-hidden="true">{state === 'copied' ? '✓' : '⧉'}</span>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </button>
  );
}
