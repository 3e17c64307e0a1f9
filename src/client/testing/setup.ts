import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import { resetApiClientState } from '@/client/lib/api-client';
import { resetConnectionTrouble } from '@/client/lib/connection-trouble';
import { resetCrashRecoveryState } from '@/client/lib/crash-recovery';
import { loadResponseSchemas } from '@/client/lib/lazy-schema';
import { resetToasts } from '@/client/lib/toast';
import { resetAuthorizationState } from '@/client/lib/xero-authorization';
import { server } from './server';

// jsdom lacks these browser APIs that Radix primitives and the theme code use.
if (!window.matchMedia) {
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    value: (query: string) => ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }),
  });
}
class ResizeObserverStub {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
globalThis.ResizeObserver ??= ResizeObserverStub as unknown as typeof ResizeObserver;
Element.prototype.scrollIntoView ??= function scrollIntoView() {};
Element.prototype.hasPointerCapture ??= () => false;
Element.prototype.releasePointerCapture ??= () => {};
Element.prototype.setPointerCapture ??= () => {};

// findBy…/waitFor wait for what the user waits for (the element, the text); how long they may wait is a ceiling
// for a busy machine, not a speed target (issue 21: the default 1 s failed tests with nothing wrong).
configure({ asyncUtilTimeout: 15_000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
// The shell's response schemas load on first use in the browser; loaded up front here, so tests with fake
// timers see each request answered in the same tick as before.
beforeAll(() => loadResponseSchemas().then(() => undefined), 60_000);

afterEach(() => {
  cleanup();
  server.resetHandlers();
  vi.useRealTimers();
  resetToasts();
  resetConnectionTrouble();
  resetCrashRecoveryState();
  resetApiClientState();
  resetAuthorizationState();
  window.sessionStorage.clear();
  window.localStorage.clear();
  document.documentElement.classList.remove('dark');
  window.history.replaceState(null, '', '/');
});

afterAll(() => server.close());
