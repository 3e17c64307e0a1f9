import { useSyncExternalStore } from 'react';
import { clearAllStorage, readCounter, SESSION_KEYS, writeCounter } from './storage';

/**
 * Crash recovery (docs/product/shell.md §4): a session counter of global errors and unhandled rejections.
 * Above 2 at start, or reaching 3 at a global error, the app enters recovery mode (the counter is reset at
 * start). The "Reset Application" banner appears after 3 errors.
 */
export const RECOVERY_THRESHOLD = 2;
export const RESET_BANNER_THRESHOLD = 3;

type Listener = () => void;
const listeners = new Set<Listener>();
let state = { recoveryMode: false, errorCount: 0 };

function emit(): void {
  for (const listener of listeners) listener();
}

/** Call once before the first render. Returns true when the app must start in recovery mode. */
export function initCrashRecovery(): boolean {
  const previous = readCounter(SESSION_KEYS.globalErrorCount);
  writeCounter(SESSION_KEYS.globalErrorCount, 0);
  state = { recoveryMode: previous > RECOVERY_THRESHOLD, errorCount: 0 };
  emit();
  return state.recoveryMode;
}

export function recordGlobalError(): void {
  const count = readCounter(SESSION_KEYS.globalErrorCount) + 1;
  writeCounter(SESSION_KEYS.globalErrorCount, count);
  // Reaching 3 while running shows the "Reset Application" banner rather than tearing down the screen the
  // user is working on; the full recovery screen is for a start after repeated crashes.
  state = { recoveryMode: state.recoveryMode, errorCount: count };
  emit();
}

/** Listens for global errors and unhandled rejections. */
export function watchGlobalErrors(): () => void {
  const onError = () => recordGlobalError();
  window.addEventListener('error', onError);
  window.addEventListener('unhandledrejection', onError);
  return () => {
    window.removeEventListener('error', onError);
    window.removeEventListener('unhandledrejection', onError);
  };
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useCrashRecovery(): { recoveryMode: boolean; errorCount: number; showResetBanner: boolean } {
  const current = useSyncExternalStore(
    subscribe,
    () => state,
    () => state,
  );
  return { ...current, showResetBanner: current.errorCount >= RESET_BANNER_THRESHOLD };
}

/** "Reset Application State": clear both browser storages and go to the given path. */
export function resetApplication(to: string): void {
  clearAllStorage();
  window.location.assign(to);
}

/** Test helper. */
export function resetCrashRecoveryState(): void {
  state = { recoveryMode: false, errorCount: 0 };
  emit();
}
