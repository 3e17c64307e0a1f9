import { lazy, type ComponentType } from 'react';
import { FEATURE_PATHS, type FeatureKey } from '@/shared/feature-flags-rules';
import { paths } from '@/client/config/paths';

type PageModule = { default: ComponentType };
type PageLoader = () => Promise<PageModule>;

/**
 * Every page but the 404 is its own chunk, outside the first screen's download (bench/results.md §3: under
 * 150 KB gzip). One loader per path, shared by the router (`lazyPage`) and the prefetcher, so a prefetched
 * page renders without a second request.
 */
const PAGE_LOADERS: Record<string, PageLoader> = {
  [paths.auth.path]: () => import('./routes/auth'),
  [paths.organizations.path]: () => import('./routes/organizations'),
  [paths.today.path]: () => import('./routes/today'),
  [paths.connect.path]: () => import('./routes/connect'),
  [paths.xeroCancel.path]: () => import('./routes/xero-cancel'),
  [paths.settings.path]: () => import('./routes/settings'),
  [paths.accountSecurity.path]: () => import('./routes/account-security'),
  [paths.invoices.path]: () => import('./routes/pay-invoices'),
  [paths.addInvoices.path]: () => import('./routes/add-invoices'),
  [paths.cisInvoices.path]: () => import('./routes/cis-bills'),
  [paths.cisReturns.path]: () => import('./routes/cis-returns'),
  [paths.outbox.path]: () => import('./routes/outbox'),
  [paths.stockJournal.path]: () => import('./routes/stock-journal'),
};

/** Paths the router redirects: their page is the one to fetch. */
const REDIRECTS: Record<string, string> = {
  [paths.home.path]: paths.organizations.path,
  [paths.login.path]: paths.auth.path,
};

/** The registered page an address shows: without query, hash or trailing slash, redirects followed. */
export function pagePathOf(path: string): string {
  const bare = (path.split(/[?#]/)[0] ?? '').replace(/(.)\/+$/, '$1');
  return REDIRECTS[bare] ?? bare;
}

function loaderFor(path: string): PageLoader | undefined {
  return PAGE_LOADERS[pagePathOf(path)];
}

/** Pages whose chunk has arrived, by loader. */
const loadedPages = new Map<PageLoader, PageModule>();

function loadAndRemember(load: PageLoader): Promise<PageModule> {
  return load().then((page) => {
    loadedPages.set(load, page);
    return page;
  });
}

/**
 * The page of `path` as a lazy component (the router wraps it in Suspense with the page spinner). A page whose
 * chunk is already here (prefetched) renders at once: React.lazy reads a thenable that answers synchronously
 * without suspending, whereas a pending import, even of a loaded module, would show the spinner and then hold
 * the page back for React's 300 ms fallback throttle.
 */
export function lazyPage(path: string) {
  const load = loaderFor(path);
  if (!load) throw new Error(`No page is registered for ${path}`);
  return lazy(() => {
    const page = loadedPages.get(load);
    if (!page) return loadAndRemember(load);
    // React.lazy only calls `then`; its types ask for a Promise, whose `then` would answer a tick later.
    const loaded: PromiseLike<PageModule> = {
      then: (onLoaded) => Promise.resolve(onLoaded ? onLoaded(page) : page),
    } as PromiseLike<PageModule>;
    return loaded as Promise<PageModule>;
  });
}

/** Loads the page of `path` (resolves at once for an unknown path). */
export async function loadPage(path: string): Promise<void> {
  const load = loaderFor(path);
  if (load) await loadAndRemember(load);
}

/**
 * Starts downloading the page of `path` (no-op for an unknown path). A failed prefetch is ignored: the
 * router's own import retries and shows the chunk error screen if it fails again.
 */
export function prefetchPage(path: string): void {
  loadPage(path).catch(() => undefined);
}

/** The pages a person is likely to open next from `path`, once signed in with these features on. */
export function getLikelyNextPages(
  path: string,
  signedIn: boolean,
  features: Record<FeatureKey, boolean>,
): string[] {
  if (!signedIn) return [paths.auth.path];
  const next: string[] = [paths.organizations.path];
  for (const [feature, on] of Object.entries(features) as Array<[FeatureKey, boolean]>) {
    if (on) next.push(FEATURE_PATHS[feature]);
  }
  const current = loaderFor(path);
  return next.filter((candidate) => loaderFor(candidate) !== current);
}
