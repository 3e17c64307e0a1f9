import { describe, expect, it } from 'vitest';
import { LOCAL_KEYS, readStorage, SESSION_KEYS, writeStorage } from '@/client/lib/storage';
import { jsdomWindow, installJsdomStorage } from './jsdom-storage';

describe('client tests use the page’s Web Storage, whatever Node provides', () => {
  it('gives the app jsdom’s localStorage and sessionStorage, so what it saves is there to read back', () => {
    const page = jsdomWindow();
    expect(window.localStorage).toBe(page.localStorage);
    expect(window.sessionStorage).toBe(page.sessionStorage);

    writeStorage('local', LOCAL_KEYS.theme, 'dark');
    writeStorage('session', SESSION_KEYS.returnUrl, '/invoices');
    expect(readStorage('local', LOCAL_KEYS.theme)).toBe('dark');
    expect(page.localStorage.getItem(LOCAL_KEYS.theme)).toBe('dark');
    expect(page.sessionStorage.getItem(SESSION_KEYS.returnUrl)).toBe('/invoices');
  });

  it('replaces storage globals of Node’s own (Node 25+: localStorage is undefined without a file)', () => {
    // A global object shaped like Node 26's: its own storage areas, the local one unusable.
    const nodeGlobal = {};
    Object.defineProperty(nodeGlobal, 'localStorage', { configurable: true, get: () => undefined });
    Object.defineProperty(nodeGlobal, 'sessionStorage', { configurable: true, value: { node: true } });
    const page = jsdomWindow();

    installJsdomStorage(nodeGlobal, page);

    expect((nodeGlobal as { localStorage: Storage }).localStorage).toBe(page.localStorage);
    expect((nodeGlobal as { sessionStorage: Storage }).sessionStorage).toBe(page.sessionStorage);
  });
});
