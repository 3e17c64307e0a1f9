import { Popover } from 'radix-ui';
import type { ComponentProps, ReactNode } from 'react';
import { cn } from '@/client/lib/utils';

/**
 * The frame the searchable pickers share (the CIS subcontractor picker, the settings contact selector): a
 * combobox button that opens a panel as wide as itself. Each picker keeps its own search box and list.
 */
export const Picker = Popover.Root;

/** The picker's button, the size of a form field; it names the list it opens (`listId`). */
export function PickerTrigger({
  expanded,
  listId,
  className,
  ...props
}: Omit<ComponentProps<'button'>, 'type' | 'role'> & { expanded: boolean; listId: string }) {
  return (
    <Popover.Trigger asChild>
      <button
        type="button"
        role="combobox"
        aria-expanded={expanded}
        aria-controls={listId}
        className={cn(
          'flex h-9 w-full min-w-0 items-center justify-between gap-2 rounded-lg border border-input bg-card px-3 text-left text-sm shadow-xs focus-visible:outline-2 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-60 aria-invalid:border-destructive',
          className,
        )}
        {...props}
      />
    </Popover.Trigger>
  );
}

/**
 * The picker's panel, below the button and at least as wide as it. Radix makes it a dialog, which needs a
 * name (axe aria-dialog-name, issue 33 item 10): `label` says what is chosen in it.
 */
export function PickerContent({
  label,
  className,
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <Popover.Portal>
      <Popover.Content
        align="start"
        sideOffset={4}
        aria-label={label}
        className={cn(
          'z-50 w-[var(--radix-popover-trigger-width)] min-w-64 rounded-xl border border-border bg-card text-card-foreground shadow-lg',
          className,
        )}
      >
        {children}
      </Popover.Content>
    </Popover.Portal>
  );
}
