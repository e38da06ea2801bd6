import type { LiveState } from '../hooks/use-event-source';

const TEXT: Record<LiveState, string> = {
  off: 'Not live',
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  unavailable: 'Live updates unavailable; refreshing every few seconds',
};

export function LiveIndicator({ state }: { state: LiveState }) {
  return (
    <span class={`live live-${state}`} data-live={state}>
      <span class="live-dot" aria-hidden="true" />
      {TEXT[state]}
    </span>
  );
}
