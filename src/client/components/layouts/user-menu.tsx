import { useEffect, useState } from 'react';
import type { CurrentUser } from '@/shared/auth';
import { useDeferredElement } from '@/client/lib/deferred-component';
import { whenIdle } from '@/client/lib/idle';
import { UserMenuButton } from './user-menu-button';

const loadUserMenuDropdown = () => import('./user-menu-dropdown').then((module) => module.default);

/**
 * The header's user menu. Its Radix DropdownMenu is a separate chunk, outside the first screen's download
 * (bench/results.md §3): the same button shows until it arrives (it downloads once the browser is idle,
 * behind the page's own requests, or at once when pressed), and a press meanwhile opens the menu when it
 * does.
 */
export function UserMenu({ user }: { user: CurrentUser }) {
  const [openRequested, setOpenRequested] = useState(false);
  const [wanted, setWanted] = useState(false);
  useEffect(() => whenIdle(() => setWanted(true)), []);
  const button = (
    <UserMenuButton
      user={user}
      aria-haspopup="menu"
      onClick={() => {
        setOpenRequested(true);
        setWanted(true);
      }}
    />
  );
  return useDeferredElement(loadUserMenuDropdown, wanted, { user, defaultOpen: openRequested }, button);
}
