import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { server, signedOutHandlers } from '@/client/testing/server';
import { getToasts } from './toast';
import { SESSION_KEYS } from './storage';
import {
  browser,
  clearStaleAuthorization,
  connectToXero,
  markAuthorizationInProgress,
  reconnectToXero,
  watchAuthorizationInterruptions,
} from './xero-authorization';

describe('authorization with Xero (spec 000 §4)', () => {
  it('connect: sets the in-progress flag, then redirects to the provider after 100 ms', async () => {
    vi.useFakeTimers();
    server.use(
      http.get('*/api/xero/connect', () =>
        HttpResponse.json({ url: 'https://login.example/authorize', cancelUrl: '/xero-cancel' }),
      ),
    );
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => {});
    const pending = connectToXero();
    await vi.advanceTimersByTimeAsync(0);
    expect(sessionStorage.getItem(SESSION_KEYS.authInProgress)).toBe('true');
    expect(Number(sessionStorage.getItem(SESSION_KEYS.authTimestamp))).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(99);
    expect(assign).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await expect(pending).resolves.toBe(true);
    expect(assign).toHaveBeenCalledWith('https://login.example/authorize');
    expect(sessionStorage.getItem(SESSION_KEYS.cancelUrl)).toBe('/xero-cancel');
    expect(getToasts()[0]?.title).toBe('Redirecting to Xero');
    assign.mockRestore();
  });

  it('connect: a missing url clears the flag and toasts', async () => {
    server.use(http.get('*/api/xero/connect', () => HttpResponse.json({ cancelUrl: '/x' })));
    await expect(connectToXero()).resolves.toBe(false);
    expect(sessionStorage.getItem(SESSION_KEYS.authInProgress)).toBeNull();
    expect(getToasts()[0]).toMatchObject({
      title: 'Connection Error',
      description: 'Failed to generate Xero connection URL',
    });
  });

  it('connect: an error clears the flag and toasts', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    server.use(http.get('*/api/xero/connect', () => HttpResponse.json({ message: 'no' }, { status: 500 })));
    await expect(connectToXero()).resolves.toBe(false);
    expect(getToasts()[0]).toMatchObject({
      title: 'Connection Error',
      description: 'An error occurred while connecting to Xero. Please try again.',
    });
    warn.mockRestore();
  });

  it('reconnect: checks the user first', async () => {
    server.use(...signedOutHandlers);
    await expect(reconnectToXero()).resolves.toBe(false);
    expect(getToasts()[0]).toMatchObject({ description: 'Please log in again before reconnecting to Xero' });
    expect(sessionStorage.getItem(SESSION_KEYS.authInProgress)).toBeNull();
  });

  it('reconnect: 100 ms pre-delay, then 500 ms before the redirect', async () => {
    vi.useFakeTimers();
    let calledAt = 0;
    const start = Date.now();
    server.use(
      http.get('*/api/xero/reconnect', () => {
        calledAt = Date.now();
        return HttpResponse.json({ url: 'https://login.example/again' });
      }),
    );
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => {});
    const pending = reconnectToXero();
    await vi.advanceTimersByTimeAsync(700);
    await expect(pending).resolves.toBe(true);
    expect(calledAt - start).toBe(100);
    expect(sessionStorage.getItem(SESSION_KEYS.reconnecting)).toBe('true');
    expect(assign).toHaveBeenCalledWith('https://login.example/again');
    assign.mockRestore();
  });

  it('reconnect: an empty answer gives "Reconnection Failed"', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    server.use(http.get('*/api/xero/reconnect', () => new HttpResponse(null, { status: 200 })));
    const pending = reconnectToXero();
    await vi.advanceTimersByTimeAsync(200);
    await expect(pending).resolves.toBe(false);
    expect(getToasts()[0]).toMatchObject({
      title: 'Reconnection Failed',
      description: 'Received empty response from server',
    });
  });

  it('an attempt older than 30 minutes is cleared on load', () => {
    markAuthorizationInProgress('connect');
    expect(clearStaleAuthorization(Date.now() + 29 * 60_000)).toBe(false);
    expect(sessionStorage.getItem(SESSION_KEYS.authInProgress)).toBe('true');
    expect(clearStaleAuthorization(Date.now() + 31 * 60_000)).toBe(true);
    expect(sessionStorage.getItem(SESSION_KEYS.authInProgress)).toBeNull();
  });

  it('leaving the page while in progress marks the attempt interrupted', () => {
    const stop = watchAuthorizationInterruptions();
    markAuthorizationInProgress('connect');
    window.dispatchEvent(new Event('pagehide'));
    expect(sessionStorage.getItem(SESSION_KEYS.lastAuthState)).toBe('interrupted');
    stop();
  });
});

describe('reconnect failures', () => {
  it('a 401 asks the user to log in again; other failures give the generic text', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    server.use(
      http.get('*/api/xero/reconnect', () => HttpResponse.json({ message: 'no session' }, { status: 401 })),
    );
    let pending = reconnectToXero();
    await vi.advanceTimersByTimeAsync(200);
    await expect(pending).resolves.toBe(false);
    expect(getToasts()[0]).toMatchObject({
      title: 'Reconnection Error',
      description: 'Authentication required. Please log in again.',
    });

    server.use(http.get('*/api/xero/reconnect', () => HttpResponse.json(['unexpected'])));
    pending = reconnectToXero();
    await vi.advanceTimersByTimeAsync(2500);
    await expect(pending).resolves.toBe(false);
    expect(warn).toHaveBeenCalledWith(
      'Failed to reconnect to Xero:',
      'Invalid response from Xero reconnect endpoint',
    );
    warn.mockRestore();
  });

  it('a missing url gives "Failed to generate Xero reconnection URL"', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    server.use(http.get('*/api/xero/reconnect', () => HttpResponse.json({ cancelUrl: '/xero-cancel' })));
    const pending = reconnectToXero();
    await vi.advanceTimersByTimeAsync(200);
    await expect(pending).resolves.toBe(false);
    expect(getToasts()[0]).toMatchObject({ description: 'Failed to generate Xero reconnection URL' });
  });
});
