import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';

interface Props {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  /** Buttons row; rendered in the dialog's footer. */
  actions?: ComponentChildren;
}

/**
 * A modal on the native <dialog>: showModal() makes the rest of the page inert (focus
 * stays inside), Escape fires `cancel`, and focus returns to the opener when it closes.
 */
export function Dialog({ open, title, onClose, children, actions }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      return () => {
        if (dialog.open) dialog.close();
        opener?.focus();
      };
    }
    return undefined;
  }, [open]);
  if (!open) return null;
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby={titleId}
      onKeyDown={(event) => {
        // showModal() makes the page inert, but Tab from the last control would still leave
        // for the browser's own UI; wrap around inside the dialog instead.
        if (event.key !== 'Tab' || !ref.current) return;
        const focusable = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
          (element) => !element.hasAttribute('disabled') && element.offsetParent !== null,
        );
        const first = focusable[0];
        const last = focusable[focusable.length - 1];
        if (!first || !last) return;
        if (event.shiftKey && document.activeElement === first) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && document.activeElement === last) {
          event.preventDefault();
          first.focus();
        }
      }}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop lands on the dialog element itself.
        if (event.target === ref.current) onClose();
      }}
    >
      <div class="dialog-body">
        <h2 id={titleId} class="dialog-title">
          {title}
        </h2>
        {children}
        {actions && <div class="dialog-actions">{actions}</div>}
      </div>
    </dialog>
  );
}
