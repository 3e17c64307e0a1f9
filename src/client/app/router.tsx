import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import type { FeatureKey } from '@/shared/feature-flags';
import { paths } from '@/client/config/paths';
import { ErrorBoundary, isChunkLoadError } from '@/client/components/errors/error-boundary';
import { AppErrorScreen, ErrorScreen } from '@/client/components/errors/error-screens';
import { AppLayout } from '@/client/components/layouts/app-layout';
import { PageSpinner } from '@/client/components/ui/spinner';
import { FeatureGuard, RequireXeroConnection } from '@/client/components/xero/connection-gate';
import { ProtectedRoute } from './protected-route';
import AuthRoute from './routes/auth';
import NotFoundRoute from './routes/not-found';
import OrganizationsRoute from './routes/organizations';

// Everything but the two first screens (sign-in and the organisation list) loads on demand.
const ConnectRoute = lazy(() => import('./routes/connect'));
const XeroCancelRoute = lazy(() => import('./routes/xero-cancel'));
const SettingsRoute = lazy(() => import('./routes/settings'));
const PayInvoicesRoute = lazy(() => import('./routes/pay-invoices'));
const AddInvoicesRoute = lazy(() => import('./routes/add-invoices'));
const CisBillsRoute = lazy(() => import('./routes/cis-bills'));
const StockJournalRoute = lazy(() => import('./routes/stock-journal'));
const AccountSecurityRoute = lazy(() => import('./routes/account-security'));

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

/** A feature page: signed in, connected (else the connect page), and the feature on for the organisation. */
function FeaturePage({ feature, component: Component }: { feature: FeatureKey; component: ComponentType }) {
  return (
    <Protected>
      <RequireXeroConnection>
        <FeatureGuard feature={feature}>
          <Component />
        </FeatureGuard>
      </RequireXeroConnection>
    </Protected>
  );
}

/** The route table of spec 000 §2. */
export function AppRouter() {
  return (
    <AppLayout>
      <Switch>
        <Route path={paths.home.path}>
          <Redirect to={paths.organizations.getHref()} replace />
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
        <Route path={paths.connect.path}>
          <Protected>
            <ConnectRoute />
          </Protected>
        </Route>
        <Route path={paths.invoices.path}>
          <FeaturePage feature="pay-invoices" component={PayInvoicesRoute} />
        </Route>
        <Route path={paths.addInvoices.path}>
          <FeaturePage feature="add-invoices" component={AddInvoicesRoute} />
        </Route>
        <Route path={paths.cisInvoices.path}>
          <FeaturePage feature="cis-bills" component={CisBillsRoute} />
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
