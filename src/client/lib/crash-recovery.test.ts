import { describe, expect, it } from 'vitest';
import { initCrashRecovery, recordGlobalError, watchGlobalErrors } from './crash-recovery';
import { SESSION_KEYS } from './storage';

describe('crash recovery (spec 000 §4)', () => {
  it('enters recovery mode when the counter is above 2 at start, and resets the counter', () => {
    sessionStorage.setItem(SESSION_KEYS.globalErrorCount, '3');
    expect(initCrashRecovery()).toBe(true);
    expect(sessionStorage.getItem(SESSION_KEYS.globalErrorCount)).toBe('0');
    sessionStorage.setItem(SESSION_KEYS.globalErrorCount, '2');
    expect(initCrashRecovery()).toBe(false);
  });

  it('counts global errors and unhandled rejections', () => {
    initCrashRecovery();
    const stop = watchGlobalErrors();
    window.dispatchEvent(new Event('error'));
    window.dispatchEvent(new Event('unhandledrejection'));
    recordGlobalError();
    expect(sessionStorage.getItem(SESSION_KEYS.globalErrorCount)).toBe('3');
    stop();
  });
});
