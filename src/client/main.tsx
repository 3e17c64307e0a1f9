import type { QueryClient } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/globals.css';
import { renderCriticalError } from '@/client/components/errors/critical-error';
import { initCrashRecovery, watchGlobalErrors } from '@/client/lib/crash-recovery';
import { currentUserQueryOptions } from '@/client/lib/auth';
import { createQueryClient } from '@/client/lib/query-client';
import { applyTheme, getStoredTheme } from '@/client/lib/theme';
import { clearStaleAuthorization, watchAuthorizationInterruptions } from '@/client/lib/xero-authorization';
import { App } from './app/app';
import { loadPage } from './app/page-chunks';
import { prefetchPageData } from './app/page-data';

// The theme is applied before the first render (no inline script: the CSP forbids them).
applyTheme(getStoredTheme());

/** Waiting longer than this for the page's chunk before the first paint would be worse than the spinner. */
const FIRST_PAGE_WAIT_MS = 1000;

const container = document.getElementById('root');
try {
  if (!container) throw new Error('The page has no #root element');
  initCrashRecovery();
  watchGlobalErrors();
  clearStaleAuthorization();
  watchAuthorizationInterruptions();
  // Who is signed in decides every screen: ask now, before the page's chunks take the browser's few
  // connections; the page in the address bar (a lazy chunk) downloads beside that answer.
  const queryClient = createQueryClient();
  void queryClient.prefetchQuery(currentUserQueryOptions());
  // A page with data of its own (the invoice list) asks for it as soon as the answers it depends on are in, not
  // once it has rendered; its chunk downloads meanwhile. The server started reading that data from Xero when it
  // sent this page (issue 32), so the request has time to spare and the chunk, not the request, is what the
  // first invoice would otherwise wait for.
  const path = window.location.pathname;
  const firstPage = Promise.all([prefetchPageData(path, queryClient), loadPage(path)]).catch(() => undefined);
  // The first paint waits for that chunk (briefly): it then shows the page, as when every page was in the
  // entry, rather than the shell with a spinner that React keeps for at least 300 ms once shown.
  const waited = new Promise((resolve) => window.setTimeout(resolve, FIRST_PAGE_WAIT_MS));
  void Promise.race([firstPage, waited]).then(() => renderApp(container, queryClient));
} catch (error) {
  console.error('Critical startup error', error);
  renderCriticalError(container ?? document.body, error);
}

function renderApp(root: HTMLElement, queryClient: QueryClient) {
  try {
    createRoot(root).render(
      <StrictMode>
        <App queryClient={queryClient} />
      </StrictMode>,
    );
  } catch (error) {
    console.error('Critical startup error', error);
    renderCriticalError(root, error);
  }
}
