/**
 * Every screen a signed-in user reaches, each with what says it has drawn: the axe walk (issue 17) and the
 * heading outline (issue 33) walk the same list, so a new screen is added once.
 */
import type { Page } from '@playwright/test';
import { expect } from './fixtures';

export const SCREENS: Array<{ path: string; ready: (page: Page) => Promise<void> }> = [
  {
    path: '/organizations',
    ready: (page) => expect(page.getByRole('heading', { name: 'Your Xero Organizations' })).toBeVisible(),
  },
  {
    // Issue 47: every organisation at a glance, once each row is read.
    path: '/today',
    ready: async (page) => {
      await expect(page.getByRole('heading', { name: 'Today', level: 1 })).toBeVisible();
      await expect(page.getByRole('progressbar')).toHaveCount(0, { timeout: 60_000 });
    },
  },
  {
    path: '/invoices',
    ready: (page) => expect(page.getByRole('button', { name: 'Process Payments' }).first()).toBeVisible(),
  },
  {
    path: '/add-invoices',
    ready: (page) => expect(page.getByRole('button', { name: 'Process All' })).toBeVisible(),
  },
  { path: '/cis-invoices', ready: (page) => expect(page.getByText('Draft CIS Bills')).toBeVisible() },
  { path: '/cis-returns', ready: (page) => expect(page.getByRole('heading').first()).toBeVisible() },
  {
    path: '/stock-journal',
    ready: (page) => expect(page.getByRole('heading', { level: 1, name: /^Stock Journal\b/ })).toBeVisible(),
  },
  {
    path: '/settings',
    ready: (page) => expect(page.getByRole('heading', { name: /Settings/ }).first()).toBeVisible(),
  },
  {
    path: '/settings?tab=admin',
    ready: (page) => expect(page.getByRole('heading', { name: /Settings/ }).first()).toBeVisible(),
  },
  { path: '/connect', ready: (page) => expect(page.getByRole('heading').first()).toBeVisible() },
  { path: '/account/security', ready: (page) => expect(page.getByRole('heading').first()).toBeVisible() },
];
