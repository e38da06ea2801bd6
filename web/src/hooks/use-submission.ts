import { useState } from 'preact/hooks';
import { toApiError, type ApiError } from '../api/api-error';

export interface Submission {
  busy: boolean;
  /** The last failure as a readable API error (field errors included); null after a new start. */
  error: ApiError | null;
  setError: (error: ApiError | null) => void;
  /**
   * Runs `work` with `busy` set and the previous error cleared; a failure becomes `error`.
   * `keepBusy`: stay busy after success, for work that navigates away (sign-in, setup), so
   * the button cannot be pressed twice while the next page loads.
   */
  run: (work: () => Promise<void>, options?: { keepBusy?: boolean }) => Promise<void>;
}

/** The busy flag and error of one form or action: every write in the dashboard goes through it. */
export function useSubmission(): Submission {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = async (work: () => Promise<void>, options: { keepBusy?: boolean } = {}): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await work();
      if (!options.keepBusy) setBusy(false);
    } catch (failure) {
      setError(toApiError(failure));
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
