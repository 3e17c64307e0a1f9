import {
  CalendarCheck,
  Building2,
  FilePlus2,
  HardHat,
  ListChecks,
  LogOut,
  PackageOpen,
  ReceiptText,
  Settings,
  ShieldCheck,
  UserCog,
} from 'lucide-react';
import { Fragment, type ComponentType } from 'react';
import { useLocation } from 'wouter';
import type { CurrentUser } from '@/shared/auth';
import { FEATURE_LABELS, type FeatureKey } from '@/shared/feature-flags-rules';
import { featureHref, paths } from '@/client/config/paths';
import { useLogout } from '@/client/lib/auth';
import { withUnsavedCheck } from '@/client/lib/unsaved-changes';
import { useFeatureFlags } from '@/client/lib/feature-access';
import { toast } from '@/client/lib/toast';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/client/components/ui/dropdown-menu';
import { UserMenuButton } from './user-menu-button';

const FEATURE_ICONS: Record<FeatureKey, ComponentType<{ 'aria-hidden'?: boolean }>> = {
  'pay-invoices': ReceiptText,
  'add-invoices': FilePlus2,
  'cis-bills': HardHat,
  'stock-journal': PackageOpen,
};

const FEATURE_ORDER: FeatureKey[] = ['pay-invoices', 'add-invoices', 'cis-bills', 'stock-journal'];

/** Logout (docs/product/shell.md §4): call, refresh the current user, toast "Logged out", go to /auth. */
export function useLogoutAction() {
  const logout = useLogout();
  const [, navigate] = useLocation();
  return {
    isPending: logout.isPending,
    run: () =>
      logout.mutate(undefined, {
        onSuccess: () => {
          toast({ title: 'Logged out', variant: 'success' });
          navigate(paths.auth.getHref());
        },
        onError: () => {
          toast({
            title: 'Logout failed',
            description: 'Failed to log out. Please try again.',
            variant: 'destructive',
          });
        },
      }),
  };
}

/**
 * The user menu (docs/product/shell.md §2): username, the pages (features greyed out when off), Settings,
 * Administration (Settings → Admin, for administrators) and Logout. In its
 * own chunk (Radix DropdownMenu stays out of the first screen's download, bench/results.md §3); `UserMenu`
 * draws the same button until it arrives and opens the menu then if the button was pressed meanwhile.
 */
export default function UserMenuDropdown({
  user,
  defaultOpen = false,
}: {
  user: CurrentUser;
  defaultOpen?: boolean;
}) {
  const [, navigate] = useLocation();
  const { flags } = useFeatureFlags();
  const logout = useLogoutAction();
  return (
    <DropdownMenu defaultOpen={defaultOpen}>
      <DropdownMenuTrigger asChild>
        <UserMenuButton user={user} />
      </DropdownMenuTrigger>
      <DropdownMenuContent>
        <DropdownMenuLabel className="truncate text-sm text-foreground">{user.username}</DropdownMenuLabel>
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={withUnsavedCheck(() => navigate(paths.today.getHref()))}>
          <ListChecks aria-hidden /> Today
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={withUnsavedCheck(() => navigate(paths.organizations.getHref()))}>
          <Building2 aria-hidden /> Organizations
        </DropdownMenuItem>
        {FEATURE_ORDER.map((feature) => {
          const Icon = FEATURE_ICONS[feature];
          return (
            <Fragment key={feature}>
              <DropdownMenuItem
                disabled={!flags[feature]}
                onSelect={withUnsavedCheck(() => navigate(featureHref[feature]))}
              >
                <Icon aria-hidden /> {FEATURE_LABELS[feature]}
              </DropdownMenuItem>
              {feature === 'cis-bills' ? (
                // The CIS month-end (issue 29) sits beside CIS Bills, behind the same switch.
                <DropdownMenuItem
                  disabled={!flags[feature]}
                  onSelect={withUnsavedCheck(() => navigate(paths.cisReturns.getHref()))}
                >
                  <CalendarCheck aria-hidden /> CIS Returns
                </DropdownMenuItem>
              ) : null}
            </Fragment>
          );
        })}
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={withUnsavedCheck(() => navigate(paths.settings.getHref()))}>
          <Settings aria-hidden /> Settings
        </DropdownMenuItem>
        {user.isAdmin ? (
          <DropdownMenuItem
            onSelect={withUnsavedCheck(() => navigate(paths.settings.getHref(undefined, 'admin')))}
          >
            <UserCog aria-hidden /> Administration
          </DropdownMenuItem>
        ) : null}
        <DropdownMenuItem onSelect={withUnsavedCheck(() => navigate(paths.accountSecurity.getHref()))}>
          <ShieldCheck aria-hidden /> Two-step sign-in
        </DropdownMenuItem>
        <DropdownMenuItem disabled={logout.isPending} onSelect={withUnsavedCheck(() => logout.run())}>
          <LogOut aria-hidden /> Logout
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
