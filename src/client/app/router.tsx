import { Suspense, useEffect, type ComponentType, type ReactNode } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import type { FeatureKey } from '@/shared/feature-flags-rules';
import { paths } from '@/client/config/paths';
import { ErrorBoundary, isChunkLoadError } from '@/client/components/errors/error-boundary';
import { AppErrorScreen, ErrorScreen } from '@/client/components/errors/error-screens';
import { AppLayout } from '@/client/components/layouts/app-layout';
import { PageSpinner } from '@/client/components/ui/spinner';
import { FeatureGuard, RequireXeroConnection } from '@/client/components/xero/connection-gate';
import { OrganizationFromLink } from '@/client/components/xero/organization-from-link';
import { useUser } from '@/client/lib/auth';
import { useFeatureFlags } from '@/client/lib/feature-access';
import { whenIdle } from '@/client/lib/idle';
import { useUserOrganizations } from '@/client/lib/organizations';
import { getLikelyNextPages, lazyPage, prefetchPage } from './page-chunks';
import { ProtectedRoute } from './protected-route';
import NotFoundRoute from './routes/not-found';

// Every page but the 404 loads on demand: the first screen is the shell (header, router, spinner) only.
const AuthRoute = lazyPage(paths.auth.path);
const OrganizationsRoute = lazyPage(paths.organizations.path);
const TodayRoute = lazyPage(paths.today.path);
const ConnectRoute = lazyPage(paths.connect.path);
const XeroCancelRoute = lazyPage(paths.xeroCancel.path);
const SettingsRoute = lazyPage(paths.settings.path);
const PayInvoicesRoute = lazyPage(paths.invoices.path);
const AddInvoicesRoute = lazyPage(paths.addInvoices.path);
const CisBillsRoute = lazyPage(paths.cisInvoices.path);
const CisReturnsRoute = lazyPage(paths.cisReturns.path);
const OutboxRoute = lazyPage(paths.outbox.path);
const StockJournalRoute = lazyPage(paths.stockJournal.path);
const AccountSecurityRoute = lazyPage(paths.accountSecurity.path);

/** Fetches the pages likely to be opened next (the list, the features on for the active organisation). */
function PrefetchLikelyPages() {
  const [location] = useLocation();
  const user = useUser();
  const { flags, isLoading } = useFeatureFlags();
  const signedIn = Boolean(user.data);
  const settled = !user.isLoading && (!signedIn || !isLoading);
  const next = settled ? getLikelyNextPages(location, signedIn, flags).join(' ') : '';
  useEffect(() => {
    if (!next) return;
    return whenIdle(() => next.split(' ').forEach(prefetchPage));
  }, [next]);
  return null;
}

function Page({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  return (
    <ErrorBoundary
      resetKey={location}
      fallback={({ error }) => (isChunkLoadError(error) ? <AppErrorScreen /> : <ErrorScreen error={error} />)}
    >
      <Suspense fallback={<PageSpinner />}>{children}</Suspense>
    </ErrorBoundary>
  );
}

function Protected({ children }: { children: ReactNode }) {
  return (
    <Page>
      <ProtectedRoute>{children}</ProtectedRoute>
    </Page>
  );
}

/**
 * `/`: Today for anyone with more than one organisation (issue 47), the organisations page otherwise (and for a
 * visitor signed out, who is sent on to sign in from there).
 */
function HomeRedirect() {
  const user = useUser();
  const organizations = useUserOrganizations();
  const signedIn = Boolean(user.data);
  if (user.isLoading || (signedIn && !organizations.data && !organizations.isError)) return <PageSpinner />;
  const many = signedIn && (organizations.data?.length ?? 0) > 1;
  return <Redirect to={many ? paths.today.getHref() : paths.organizations.getHref()} replace />;
}

/**
 * A feature page: signed in, connected (else the connect page), and the feature on for the organisation.
 * Pages whose own 001 states say what to do without a connection (Add Invoices, CIS Bills) show those
 * instead of the connect page (issue 17 item 14). A link naming an organisation (`?org=`, the Today page's
 * figures) makes it the active one first (issue 47).
 */
function FeaturePage({
  feature,
  component: Component,
  ownConnectionStates = false,
}: {
  feature: FeatureKey;
  component: ComponentType;
  ownConnectionStates?: boolean;
}) {
  const page = (
    <OrganizationFromLink>
      <FeatureGuard feature={feature}>
        <Component />
      </FeatureGuard>
    </OrganizationFromLink>
  );
  return (
    <Protected>
      {ownConnectionStates ? page : <RequireXeroConnection>{page}</RequireXeroConnection>}
    </Protected>
  );
}

/** The route table of docs/product/shell.md §2. */
export function AppRouter() {
  return (
    <AppLayout>
      <PrefetchLikelyPages />
      <Switch>
        <Route path={paths.home.path}>
          <HomeRedirect />
        </Route>
        <Route path={paths.auth.path}>
          <Page>
            <AuthRoute />
          </Page>
        </Route>
        <Route path={paths.login.path}>
          <Redirect to={paths.auth.getHref()} replace />
        </Route>
        <Route path={paths.organizations.path}>
          <Protected>
            <OrganizationsRoute />
          </Protected>
        </Route>
        <Route path={paths.today.path}>
          <Protected>
            <TodayRoute />
          </Protected>
        </Route>
        <Route path={paths.connect.path}>
          <Protected>
            <ConnectRoute />
          </Protected>
        </Route>
        <Route path={paths.invoices.path}>
          <FeaturePage feature="pay-invoices" component={PayInvoicesRoute} />
        </Route>
        <Route path={paths.addInvoices.path}>
          <FeaturePage feature="add-invoices" component={AddInvoicesRoute} ownConnectionStates />
        </Route>
        <Route path={paths.cisInvoices.path}>
          <FeaturePage feature="cis-bills" component={CisBillsRoute} ownConnectionStates />
        </Route>
        <Route path={paths.cisReturns.path}>
          <FeaturePage feature="cis-bills" component={CisReturnsRoute} />
        </Route>
        <Route path={paths.outbox.path}>
          <FeaturePage feature="cis-bills" component={OutboxRoute} />
        </Route>
        <Route path={paths.stockJournal.path}>
          <FeaturePage feature="stock-journal" component={StockJournalRoute} />
        </Route>
        <Route path={paths.settings.path}>
          <Protected>
            <SettingsRoute />
          </Protected>
        </Route>
        <Route path={paths.accountSecurity.path}>
          <Protected>
            <AccountSecurityRoute />
          </Protected>
        </Route>
        <Route path={paths.xeroCancel.path}>
          <Page>
            <XeroCancelRoute />
          </Page>
        </Route>
        <Route>
          <NotFoundRoute />
        </Route>
      </Switch>
    </AppLayout>
  );
}
