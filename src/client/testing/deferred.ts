import { screen, waitFor } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { expect } from 'vitest';

/**
 * Clicks a header control whose Radix part is a chunk of its own (the user menu, the organisation switcher:
 * `lib/deferred-component.ts`). The same-looking placeholder shows until the chunk arrives, when the browser is
 * idle, and is then replaced. A person's press lands on whatever is on screen at that moment, but a test holds
 * the element it found: on a busy machine the swap can come between finding and clicking, and the click on the
 * replaced placeholder opens nothing (issue 46). So wait for the Radix trigger (it carries `data-state`), then
 * click the element on screen now.
 */
export async function clickDeferredTrigger(
  user: UserEvent,
  find: () => Promise<HTMLElement | undefined>,
): Promise<void> {
  await waitFor(async () => expect(await find()).toHaveAttribute('data-state', 'closed'));
  const trigger = await find();
  if (!trigger) throw new Error('the trigger is gone');
  await user.click(trigger);
}

/** The user menu's button, for {@link clickDeferredTrigger}. */
export const userMenuButton = (username: string) => () =>
  screen.findByRole('button', { name: `User menu for ${username}` });
