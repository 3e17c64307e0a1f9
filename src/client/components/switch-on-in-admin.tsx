import { Link } from 'wouter';
import { paths } from '@/client/config/paths';
import { useUser } from '@/client/lib/auth';
import { cn } from '@/client/lib/utils';

/** Whether the signed-in user is an administrator (false while loading or signed out). */
export function useIsAdministrator(): boolean {
  return useUser().data?.isAdmin === true;
}

/**
 * Where a feature is off: administrators get a link to the switches (Settings → Admin); everyone else gets
 * nothing, and keeps the spec's "contact an administrator" wording around it.
 */
export function SwitchOnInAdmin({ className }: { className?: string }) {
  if (!useIsAdministrator()) return null;
  return (
    <Link
      href={paths.settings.getHref(undefined, 'admin')}
      className={cn('font-medium text-primary underline underline-offset-4 hover:no-underline', className)}
    >
      Switch it on in Admin
    </Link>
  );
}
