import { BarChart3, Building2, HardHat, ReceiptText, ShieldCheck, Sparkles } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { apiPaths, paths } from '@/client/config/paths';
import { AUTH_FALLBACKS, logout, useAppConfig, useDemoLogin, useUser } from '@/client/lib/auth';
import { getMessage } from '@/client/lib/api-client';
import { isSessionExpired } from '@/client/lib/session';
import { toast } from '@/client/lib/toast';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { browser } from '@/client/lib/xero-authorization';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { PageSpinner, Spinner } from '@/client/components/ui/spinner';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/client/components/ui/tabs';
import { getAuthErrorToast, getAuthWarningToast } from '../utils/auth-query-messages';
import { getMfaStep, LoginForm, type MfaStep } from './login-form';
import { MfaRequiredSetup } from './mfa-required-setup';
import { MfaVerifyForm } from './mfa-verify-form';
import { RegisterForm } from './register-form';

/**
 * After Sign in with Xero, the signed-in user goes on to /organizations after 1.5 s
 * (docs/product/shell.md §2).
 */
export const XERO_CALLBACK_REDIRECT_MS = 1500;

const HANDLED_PARAMS = ['error', 'warning', 'reason', 'message', 'xero_callback'];

/** Reads the query once, shows its toasts and removes it from the URL. Returns whether it was a Xero callback. */
function useAuthQueryOnce(): boolean {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const [isCallback] = useState(() => new URLSearchParams(search).get('xero_callback') === 'true');
  const handled = useRef(false);
  useEffect(() => {
    if (handled.current) return;
    handled.current = true;
    const params = new URLSearchParams(search);
    const error = params.get('error');
    const warning = params.get('warning');
    if (error) toast(getAuthErrorToast(error, params.get('reason')));
    else if (warning) {
      const warningToast = getAuthWarningToast(warning);
      if (warningToast) toast(warningToast);
    }
    if (HANDLED_PARAMS.some((key) => params.has(key))) {
      for (const key of HANDLED_PARAMS) params.delete(key);
      const rest = params.toString();
      navigate(rest ? `${location}?${rest}` : location, { replace: true });
    }
  }, [search, location, navigate]);
  return isCallback;
}

export function AuthPage() {
  const { data: user, isLoading } = useUser();
  const [, navigate] = useLocation();
  const isCallback = useAuthQueryOnce();
  const config = useAppConfig();
  const demoLogin = useDemoLogin();
  // Two-step sign-in: the password was right and the session waits for a code, or for the set-up.
  const [mfaStep, setMfaStep] = useState<MfaStep | null>(null);
  const [showingCodes, setShowingCodes] = useState(false);
  // Signed out elsewhere or expired: said here rather than by a silent jump (issue 17 item 10).
  const [sessionEnded] = useState(isSessionExpired);

  function cancelMfaStep() {
    setMfaStep(null);
    setShowingCodes(false);
    // Ends the half-signed-in session on the server; failing that, it simply expires in minutes.
    void logout().catch(() => undefined);
  }

  useEffect(() => {
    if (!user || showingCodes) return;
    if (isCallback) {
      const timer = setTimeout(() => navigate(paths.organizations.getHref()), XERO_CALLBACK_REDIRECT_MS);
      return () => clearTimeout(timer);
    }
    navigate(paths.home.getHref(), { replace: true });
  }, [user, isCallback, navigate, showingCodes]);

  if (isLoading && !mfaStep) return <PageSpinner label="Checking your session" />;
  if (user && isCallback) {
    return (
      <div className="flex min-h-[50vh] flex-col items-center justify-center gap-3 text-center">
        <Spinner className="size-8" label="Signing you in" />
        <p className="text-sm text-muted-foreground">
          Signed in with Xero. Taking you to your organisations…
        </p>
      </div>
    );
  }
  if (user && !showingCodes) return <PageSpinner />;

  if (mfaStep) {
    return (
      <div className="mx-auto grid max-w-5xl items-stretch gap-6 py-2 sm:py-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)] lg:gap-10">
        <Card className="order-1 lg:self-start">
          <CardContent className="p-6 sm:p-8">
            {mfaStep === 'verify' ? (
              <MfaVerifyForm onCancel={cancelMfaStep} />
            ) : (
              <MfaRequiredSetup onCancel={cancelMfaStep} onShowingCodes={setShowingCodes} />
            )}
          </CardContent>
        </Card>
        <MarketingPanel />
      </div>
    );
  }

  return (
    <div className="mx-auto grid max-w-5xl items-stretch gap-6 py-2 sm:py-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)] lg:gap-10">
      <Card className="order-1">
        <CardContent className="flex flex-col gap-6 p-6 sm:p-8">
          <div>
            <h1 className="text-2xl font-semibold tracking-tight">Welcome to Ledgerlink</h1>
            <p className="mt-1.5 text-sm text-muted-foreground">
              Sign in to work with your Xero organisations.
            </p>
          </div>

          {sessionEnded ? (
            <Alert variant="warning">
              <AlertTitle>Your session has ended</AlertTitle>
              <AlertDescription>Please sign in again to carry on.</AlertDescription>
            </Alert>
          ) : null}

          {/* Xero's Sign in with Xero button (issue 45 item 6): Xero's colours and words. Xero asks that its
              logo not be drawn into buttons of one's own, so none is. */}
          <Button
            size="lg"
            variant="xero"
            className="w-full"
            onClick={() => browser.assign(apiPaths.authXero)}
          >
            Sign in with Xero
          </Button>

          {config.data?.demoLogin ? (
            <Button
              size="lg"
              variant="outline"
              className="w-full"
              disabled={demoLogin.isPending}
              onClick={() =>
                demoLogin.mutate(undefined, {
                  onSuccess: (answer) => setMfaStep(getMfaStep(answer)),
                  onError: (error) =>
                    toast({
                      title: AUTH_FALLBACKS.login,
                      description: getMessage(error, AUTH_FALLBACKS.login),
                      variant: 'destructive',
                    }),
                })
              }
            >
              {demoLogin.isPending ? (
                <Spinner className="size-4" label="Signing in" />
              ) : (
                <Sparkles aria-hidden />
              )}
              Try the demo
            </Button>
          ) : null}

          <div className="flex items-center gap-3 text-xs uppercase tracking-wide text-muted-foreground">
            <span className="h-px flex-1 bg-border" />
            or use a Ledgerlink account
            <span className="h-px flex-1 bg-border" />
          </div>

          <Tabs defaultValue="login">
            <TabsList className="w-full">
              <TabsTrigger value="login">Sign in</TabsTrigger>
              <TabsTrigger value="register">Create account</TabsTrigger>
            </TabsList>
            <TabsContent value="login">
              <LoginForm onMfaStep={setMfaStep} />
            </TabsContent>
            <TabsContent value="register">
              <RegisterForm onMfaStep={setMfaStep} />
            </TabsContent>
          </Tabs>
        </CardContent>
      </Card>

      <MarketingPanel />
    </div>
  );
}

const HIGHLIGHTS = [
  {
    icon: ReceiptText,
    title: 'Pay invoices in seconds',
    text: 'Split card and cash payments against outstanding sales invoices.',
  },
  {
    icon: HardHat,
    title: 'CIS bills done right',
    text: 'Subcontractor bills with the 20% deduction worked out for you.',
  },
  {
    icon: BarChart3,
    title: 'Weekly stock journals',
    text: 'Net sales by week turned into stock transfer journals.',
  },
  {
    icon: Building2,
    title: 'Every organisation',
    text: 'Switch between your connected organisations from the header.',
  },
];

function MarketingPanel() {
  return (
    <section
      aria-label="About Ledgerlink"
      className="order-2 flex flex-col justify-between gap-8 rounded-xl bg-primary p-6 text-primary-foreground shadow-sm sm:p-8 dark:border dark:border-border dark:bg-accent dark:text-accent-foreground"
    >
      <div>
        <p className="text-sm font-medium uppercase tracking-wider opacity-80">Ledgerlink for Xero</p>
        <h2 className="mt-2 text-2xl font-semibold leading-snug tracking-tight">
          The daily Xero work of a UK small business, done fast.
        </h2>
      </div>
      <ul className="grid gap-5">
        {HIGHLIGHTS.map(({ icon: Icon, title, text }) => (
          <li key={title} className="flex gap-3">
            <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-primary-foreground/15">
              <Icon aria-hidden className="size-5" />
            </span>
            <span>
              <span className="block font-medium">{title}</span>
              <span className="block text-sm opacity-85">{text}</span>
            </span>
          </li>
        ))}
      </ul>
      <p className="flex items-center gap-2 text-sm opacity-85">
        <ShieldCheck aria-hidden className="size-4" /> Your Xero tokens never reach the browser.
      </p>
    </section>
  );
}
