import { useEffect } from 'preact/hooks';

/** Every page names itself in the tab and for screen readers announcing navigation. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Docwright` : 'Docwright';
  }, [title]);
}
