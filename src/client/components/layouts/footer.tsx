import { Settings } from 'lucide-react';
import { Link } from 'wouter';
import { paths } from '@/client/config/paths';
import { useUser } from '@/client/lib/auth';
import { Button } from '@/client/components/ui/button';

/**
 * The copyright line and a Settings button (docs/product/shell.md §2). Settings is a protected page: before
 * anyone has signed in the button would only lead back to the sign-in page, so it is offered once signed in
 * (issue 45 item 4).
 */
export function Footer() {
  const { data: user } = useUser();
  return (
    <footer className="border-t border-border">
      <div className="mx-auto flex max-w-7xl flex-col items-center justify-between gap-2 px-4 py-4 text-sm text-muted-foreground sm:flex-row sm:px-6">
        <p>© {new Date().getFullYear()} Ledgerlink. All rights reserved.</p>
        {user ? (
          <Button variant="ghost" size="sm" asChild>
            <Link href={paths.settings.getHref()}>
              <Settings aria-hidden /> Settings
            </Link>
          </Button>
        ) : null}
      </div>
    </footer>
  );
}
