import { useState } from 'preact/hooks';
import { announceThemeChange, applyTheme, storedTheme, type ThemeChoice } from '../lib/theme';

const NEXT: Record<ThemeChoice, ThemeChoice> = { system: 'light', light: 'dark', dark: 'system' };
const LABEL: Record<ThemeChoice, string> = { system: 'System theme', light: 'Light theme', dark: 'Dark theme' };
const ICON: Record<ThemeChoice, string> = { system: '◐', light: '☀', dark: '☾' };

/** Cycles system → light → dark; the choice is kept in localStorage. */
export function ThemeToggle() {
  const [choice, setChoice] = useState<ThemeChoice>(storedTheme);
  const next = NEXT[choice];
  return (
    <button
      type="button"
      class="btn btn-ghost btn-icon"
      onClick={() => {
        applyTheme(next);
        setChoice(next);
        announceThemeChange();
      }}
      aria-label={`${LABEL[choice]}; switch to ${LABEL[next].toLowerCase()}`}
      title={`${LABEL[choice]} (click for ${LABEL[next].toLowerCase()})`}
    >
      <span aria-hidden="true">{ICON[choice]}</span>
    </button>
  );
}
