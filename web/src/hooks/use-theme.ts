import { useEffect, useState } from 'preact/hooks';
import { effectiveTheme, onThemeChange } from '../lib/theme';

/** The theme showing now, updated when the toggle or the system preference changes it. */
export function useTheme(): 'light' | 'dark' {
  const [theme, setTheme] = useState(effectiveTheme);
  useEffect(() => onThemeChange(() => setTheme(effectiveTheme())), []);
  return theme;
}
