/** The colour theme: the system's (prefers-color-scheme), or light or dark as picked in the header; kept per browser. */
export type Theme = 'system' | 'light' | 'dark';

export const THEMES: Array<{ value: Theme; label: string }> = [
  { value: 'system', label: 'System theme' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

const THEME_KEY = 'kgrag.theme';

export function storedTheme(): Theme {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** Sets html[data-theme] (styles.css picks its colours by it) and remembers the choice. */
export function applyTheme(theme: Theme): void {
  if (theme === 'system') {
    delete document.documentElement.dataset.theme;
    localStorage.removeItem(THEME_KEY);
  } else {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem(THEME_KEY, theme);
  }
}
