import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/globals.css';
import { renderCriticalError } from '@/client/components/errors/critical-error';
import { initCrashRecovery, watchGlobalErrors } from '@/client/lib/crash-recovery';
import { applyTheme, getStoredTheme } from '@/client/lib/theme';
import { clearStaleAuthorization, watchAuthorizationInterruptions } from '@/client/lib/xero-authorization';
import { App } from './app/app';
import { prefetchPage } from './app/page-chunks';

// The theme is applied before the first render (no inline script: the CSP forbids them).
applyTheme(getStoredTheme());
// Pages are lazy chunks: the one in the address bar starts downloading now, beside the user's first request,
// rather than after React has rendered the route.
prefetchPage(window.location.pathname);

const container = document.getElementById('root');
try {
  if (!container) throw new Error('The page has no #root element');
  initCrashRecovery();
  watchGlobalErrors();
  clearStaleAuthorization();
  watchAuthorizationInterruptions();
  createRoot(container).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
} catch (error) {
  console.error('Critical startup error', error);
  renderCriticalError(container ?? document.body, error);
}
