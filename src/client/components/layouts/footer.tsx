import { Settings } from 'lucide-react';
import { Link } from 'wouter';
import { paths } from '@/client/config/paths';
import { Button } from '@/client/components/ui/button';

export function Footer() {
  return (
    <footer className="border-t border-border">
      <div className="mx-auto flex max-w-7xl flex-col items-center justify-between gap-2 px-4 py-4 text-sm text-muted-foreground sm:flex-row sm:px-6">
        <p>© {new Date().getFullYear()} Ledgerlink. All rights reserved.</p>
        <Button variant="ghost" size="sm" asChild>
          <Link href={paths.settings.getHref()}>
            <Settings aria-hidden /> Settings
          </Link>
        </Button>
      </div>
    </footer>
  );
}
