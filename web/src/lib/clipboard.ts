/**
 * Copies text. The async Clipboard API needs a secure context (https or localhost); a
 * dashboard reached over plain http on a LAN address falls back to a hidden textarea.
 */
export async function copyText(text: string): Promise<boolean> {
  // navigator.clipboard is missing outside a secure context, whatever the DOM types say.
  if (window.isSecureContext && 'clipboard' in navigator) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Permission denied (e.g. unfocused document): try the fallback.
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  document.body.append(area);
  area.select();
  let copied: boolean;
  try {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the only copy that works over plain http, which the Clipboard API refuses
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  return copied;
}
