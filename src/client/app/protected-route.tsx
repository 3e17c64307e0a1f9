import type { ReactNode } from 'react';
import { Redirect } from 'wouter';
import { paths } from '@/client/config/paths';
import { useUser } from '@/client/lib/auth';
import { PageSpinner } from '@/client/components/ui/spinner';

/**
 * Protected routes show a spinner while the user loads and send a signed-out visitor to /auth
 * (docs/product/shell.md §2).
 */
export function ProtectedRoute({ children }: { children: ReactNode }) {
  const { data: user, isLoading } = useUser();
  if (isLoading) return <PageSpinner label="Loading your account" />;
  if (!user) return <Redirect to={paths.auth.getHref()} replace />;
  return <>{children}</>;
}
