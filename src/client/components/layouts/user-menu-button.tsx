import { ChevronDown, UserRound } from 'lucide-react';
import type { CurrentUser } from '@/shared/auth';
import { Button, type ButtonProps } from '@/client/components/ui/button';

/** The user menu's button: the menu's trigger, and on its own while the menu's chunk loads. */
export function UserMenuButton({ user, ...props }: ButtonProps & { user: CurrentUser }) {
  return (
    <Button
      variant="ghost"
      className="h-9 max-w-[12rem] gap-2 px-2 sm:px-3"
      aria-label={`User menu for ${user.username}`}
      {...props}
    >
      <span className="flex size-7 shrink-0 items-center justify-center rounded-full bg-accent text-accent-foreground">
        <UserRound aria-hidden className="size-4" />
      </span>
      <span className="hidden truncate sm:inline">{user.username}</span>
      <ChevronDown aria-hidden className="hidden opacity-60 sm:block" />
    </Button>
  );
}
