import { lazy, Suspense, useEffect, useState } from 'react';
import type { CurrentUser } from '@/shared/auth';
import { UserMenuButton } from './user-menu-button';

const loadUserMenuDropdown = () => import('./user-menu-dropdown');
const UserMenuDropdown = lazy(loadUserMenuDropdown);

/**
 * The header's user menu. Its Radix DropdownMenu is a separate chunk, outside the first screen's download
 * (bench §3): the same button shows until it arrives (it starts downloading as soon as the header shows a
 * signed-in user), and a press meanwhile opens the menu when it does.
 */
export function UserMenu({ user }: { user: CurrentUser }) {
  const [openRequested, setOpenRequested] = useState(false);
  useEffect(() => {
    loadUserMenuDropdown().catch(() => undefined);
  }, []);
  return (
    <Suspense fallback={<UserMenuButton user={user} aria-haspopup="menu" onClick={() => setOpenRequested(true)} />}>
      <UserMenuDropdown user={user} defaultOpen={openRequested} />
    </Suspense>
  );
}
