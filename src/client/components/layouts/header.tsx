import { LogIn, Plug, RefreshCw } from 'lucide-react';
import { Link, useLocation } from 'wouter';
import { isNeverConnected } from '@/shared/connection-rules';
import { paths } from '@/client/config/paths';
import { useUser } from '@/client/lib/auth';
import { useConnection, useConnectionState } from '@/client/lib/connection';
import { Button } from '@/client/components/ui/button';
import { cn } from '@/client/lib/utils';
import { ConnectionIndicator } from './connection-indicator';
import { LogoMark } from './logo';
import { OrganizationSwitcher } from './organization-switcher';
import { ThemeToggle } from './theme-toggle';
import { UserMenu } from './user-menu';

export function Header() {
  const { data: user } = useUser();
  const { data: connection } = useConnection();
  const state = useConnectionState();
  const [, navigate] = useLocation();
  const signedIn = Boolean(user);
  const connected = Boolean(user && connection?.connected);

  return (
    <header className="sticky top-0 z-40 border-b border-border bg-header backdrop-blur supports-[backdrop-filter]:bg-header">
      <div className="mx-auto flex h-14 max-w-7xl items-center gap-3 px-4 sm:px-6">
        <Link
          href={signedIn ? paths.organizations.getHref() : paths.auth.getHref()}
          className="flex shrink-0 items-center gap-2 rounded-md font-semibold tracking-tight"
        >
          <LogoMark className="size-7" />
          {/* On a phone the Connect/Reconnect button needs the room (issue 33 item 3): the mark alone stays. */}
          <span className={cn('text-[15px]', signedIn && !connected && 'max-sm:sr-only')}>Ledgerlink</span>
        </Link>

        {connected ? (
          <div className="ml-4 hidden md:block">
            <OrganizationSwitcher />
          </div>
        ) : null}

        <div className="ml-auto flex items-center gap-1.5 sm:gap-2">
          {user && connection ? (
            connection.connected ? (
              <>
                <span className="hidden sm:inline-flex">
                  <ConnectionIndicator connection={connection} />
                </span>
                <span className="sm:hidden">
                  <ConnectionIndicator connection={connection} compact />
                </span>
              </>
            ) : (
              <>
                {/* Xero refused or removed the connection: the indicator is red beside Reconnect and says what
                    happened, in the words every screen uses (docs/product/shell.md §2; issues 33 item 3, 45). */}
                {state.kind === 'lost' ? (
                  <>
                    <span className="hidden lg:inline-flex">
                      <ConnectionIndicator connection={connection} />
                    </span>
                    <span className="lg:hidden">
                      <ConnectionIndicator connection={connection} compact />
                    </span>
                  </>
                ) : null}
                <Button size="sm" variant="xero" onClick={() => navigate(paths.connect.getHref())}>
                  {/* Nothing to renew for a user who never connected (issue 33 item 5). */}
                  {isNeverConnected(connection) ? (
                    <>
                      <Plug aria-hidden /> Connect to Xero
                    </>
                  ) : (
                    <>
                      <RefreshCw aria-hidden /> Reconnect
                    </>
                  )}
                </Button>
              </>
            )
          ) : null}
          <ThemeToggle />
          {user ? (
            <UserMenu user={user} />
          ) : (
            <Button size="sm" asChild>
              <Link href={paths.auth.getHref()}>
                <LogIn aria-hidden /> Login
              </Link>
            </Button>
          )}
        </div>
      </div>
      {connected ? (
        <div className="border-t border-border px-4 py-2 md:hidden">
          <OrganizationSwitcher />
        </div>
      ) : null}
    </header>
  );
}
