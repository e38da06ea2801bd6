import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { toApiError, type ApiError } from '../api/api-error';

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
  /** Replace the data locally (after a mutation answered with the new value). */
  setData: (update: T | ((previous: T | undefined) => T)) => void;
}

/**
 * Loads data for a page and reloads when a key changes. Answers of an older key are
 * dropped (their requests aborted), so a fast range switch never shows stale numbers.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, key: string): Resource<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const loader = useRef(load);
  loader.current = load;

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    loader.current(controller.signal).then(
      (value) => {
        if (controller.signal.aborted) return;
        setDataState(() => value);
        setLoading(false);
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        setError(toApiError(failure));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  const setData = useCallback((update: T | ((previous: T | undefined) => T)) => {
    setDataState((previous) => (typeof update === 'function' ? (update as (p: T | undefined) => T)(previous) : update));
  }, []);
  return { data, error, loading, reload, setData };
}
