import { useEffect, useState } from 'preact/hooks';

interface Toast {
  id: number;
  text: string;
  tone: 'info' | 'error';
}

let nextId = 1;
const listeners = new Set<(toasts: Toast[]) => void>();
let toasts: Toast[] = [];

function publish(next: Toast[]): void {
  toasts = next;
  for (const listener of listeners) listener(next);
}

/** A short confirmation ("Key revoked") announced politely; it disappears by itself. */
export function notify(text: string, tone: Toast['tone'] = 'info'): void {
  const toast = { id: nextId++, text, tone };
  publish([...toasts, toast]);
  setTimeout(() => publish(toasts.filter((item) => item.id !== toast.id)), 4_000);
}

/** The one live region all toasts are announced through; mounted once by the app shell. */
export function ToastRegion() {
  const [items, setItems] = useState<Toast[]>(toasts);
  useEffect(() => {
    listeners.add(setItems);
    return () => {
      listeners.delete(setItems);
    };
  }, []);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {items.map((toast) => (
        <div key={toast.id} class={`toast toast-${toast.tone}`}>
          {toast.text}
        </div>
      ))}
    </div>
  );
}
