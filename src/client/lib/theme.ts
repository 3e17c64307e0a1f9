import { useSyncExternalStore } from 'react';
import { LOCAL_KEYS, readStorage, writeStorage } from './storage';

/** Class-based theme, light by default, stored under the `theme` key (docs/product/shell.md §2). */
export type Theme = 'light' | 'dark';

type Listener = () => void;
const listeners = new Set<Listener>();

export function getStoredTheme(): Theme {
  return readStorage('local', LOCAL_KEYS.theme) === 'dark' ? 'dark' : 'light';
}

export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  root.classList.toggle('dark', theme === 'dark');
  root.style.colorScheme = theme;
}

export function setTheme(theme: Theme): void {
  writeStorage('local', LOCAL_KEYS.theme, theme);
  applyTheme(theme);
  for (const listener of listeners) listener();
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useTheme(): [Theme, (theme: Theme) => void] {
  const theme = useSyncExternalStore(subscribe, getStoredTheme, () => 'light' as const);
  return [theme, setTheme];
}
