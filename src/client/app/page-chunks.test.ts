import { screen } from '@testing-library/react';
import { createElement, Suspense } from 'react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '@/client/testing/render-app';
import { getLikelyNextPages, lazyPage, loadPage } from './page-chunks';

const NONE = { 'pay-invoices': false, 'add-invoices': false, 'cis-bills': false, 'stock-journal': false };

describe('page chunks', () => {
  it('a signed-out visitor is likely to sign in next', () => {
    expect(getLikelyNextPages('/organizations', false, NONE)).toEqual(['/auth']);
  });

  it('a signed-in user: the organisation list and the features on for the active organisation', () => {
    const flags = { ...NONE, 'pay-invoices': true, 'stock-journal': true };
    expect(getLikelyNextPages('/auth', true, flags)).toEqual([
      '/organizations',
      '/invoices',
      '/stock-journal',
    ]);
  });

  it('never the page already shown, under any of its addresses', () => {
    const flags = { ...NONE, 'pay-invoices': true };
    expect(getLikelyNextPages('/organizations', true, flags)).toEqual(['/invoices']);
    expect(getLikelyNextPages('/', true, flags)).toEqual(['/invoices']);
    expect(getLikelyNextPages('/invoices/?x=1', true, flags)).toEqual(['/organizations']);
  });

  it('loads a page by its path; redirects load their target; unknown paths load nothing', async () => {
    await expect(loadPage('/login')).resolves.toBeUndefined();
    await expect(loadPage('/no-such-page')).resolves.toBeUndefined();
    expect(() => lazyPage('/no-such-page')).toThrow('No page is registered for /no-such-page');
  });

  it('a page whose chunk is here renders at once, without the Suspense fallback', async () => {
    await loadPage('/auth');
    const AuthPage = lazyPage('/auth');
    renderWithProviders(
      createElement(Suspense, { fallback: createElement('p', null, 'fallback') }, createElement(AuthPage)),
    );
    expect(screen.queryByText('fallback')).not.toBeInTheDocument();
  });
});
