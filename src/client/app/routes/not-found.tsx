import { Compass } from 'lucide-react';
import { Link } from 'wouter';
import { paths } from '@/client/config/paths';
import { Button } from '@/client/components/ui/button';
import { useDocumentTitle } from '@/client/lib/document-title';

export default function NotFoundRoute() {
  useDocumentTitle('Page not found');
  return (
    <div className="flex min-h-[50vh] flex-col items-center justify-center gap-3 text-center">
      <div className="flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
        <Compass aria-hidden className="size-6" />
      </div>
      <p className="text-sm font-semibold text-primary">404</p>
      <h1 className="text-2xl font-semibold tracking-tight">Page not found</h1>
      <p className="max-w-sm text-sm text-muted-foreground">
        The page you are looking for does not exist or has moved.
      </p>
      <Button asChild className="mt-2">
        <Link href={paths.home.getHref()}>Go to Home</Link>
      </Button>
    </div>
  );
}
