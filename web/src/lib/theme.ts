export type ThemeChoice = 'light' | 'dark' | 'system';

const STORAGE_KEY = 'docwright-theme';

export function storedTheme(): ThemeChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    // Storage can be disabled (privacy settings); the system preference still applies.
    return 'system';
  }
}

/** "system" leaves the choice to prefers-color-scheme, through the CSS media query. */
export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
  try {
    if (choice === 'system') localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // Not persisted; it still applies to this page.
  }
}

/** The theme actually showing, for components (charts) that draw with explicit colours. */
export function effectiveTheme(): 'light' | 'dark' {
  const forced = document.documentElement.dataset.theme;
  if (forced === 'light' || forced === 'dark') return forced;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

const THEME_EVENT = 'docwright-theme-change';

/** Tells components that draw with explicit colours (chart, diff) to redraw. */
export function announceThemeChange(): void {
  window.dispatchEvent(new Event(THEME_EVENT));
}

/** Calls back when the toggle or the system preference changes the effective theme. */
export function onThemeChange(callback: () => void): () => void {
  const media = matchMedia('(prefers-color-scheme: dark)');
  window.addEventListener(THEME_EVENT, callback);
  media.addEventListener('change', callback);
  return () => {
    window.removeEventListener(THEME_EVENT, callback);
    media.removeEventListener('change', callback);
  };
}
