import { useEffect, useRef, useState } from 'preact/hooks';

export type LiveState = 'off' | 'connecting' | 'live' | 'reconnecting' | 'unavailable';

/**
 * Subscribes to a Server-Sent Events stream on this origin (the session cookie goes along).
 * The browser reconnects by itself after a dropped connection; a stream the server refuses
 * (an HTTP error) ends as 'unavailable', and callers fall back to polling.
 */
export function useEventSource(url: string | null, listeners: Record<string, (event: MessageEvent<string>) => void>): LiveState {
  const [state, setState] = useState<LiveState>(url ? 'connecting' : 'off');
  const current = useRef(listeners);
  current.current = listeners;
  const names = Object.keys(listeners).sort().join(',');

  useEffect(() => {
    if (!url) {
      setState('off');
      return undefined;
    }
    setState('connecting');
    const source = new EventSource(url, { withCredentials: true });
    source.onopen = () => setState('live');
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? 'unavailable' : 'reconnecting');
    for (const name of names.split(',').filter(Boolean)) {
      source.addEventListener(name, (event: Event) => current.current[name]?.(event as MessageEvent<string>));
    }
    // Closing the source drops its listeners with it.
    return () => source.close();
  }, [url, names]);
  return state;
}
