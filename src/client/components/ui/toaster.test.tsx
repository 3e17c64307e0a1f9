import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { toast } from '@/client/lib/toast';
import { Toaster } from './toaster';

describe('Toaster (issue 33 item 6)', () => {
  it('offers a toast’s next step as a button that the keyboard reaches, runs it once and closes the toast', async () => {
    const user = userEvent.setup();
    const onAction = vi.fn();
    render(
      <>
        <button type="button">Before</button>
        <Toaster />
      </>,
    );
    act(() => {
      toast({
        title: 'Payment Failed',
        description: 'Xero did not answer. Nothing was paid.',
        variant: 'destructive',
        action: { label: 'Retry', onAction, altText: 'Retry the payment' },
      });
    });
    expect(screen.getByText('Payment Failed')).toBeInTheDocument();
    screen.getByRole('button', { name: 'Before' }).focus();
    // Tab from the page reaches the toast's button (F8, the toast area's hotkey, does too).
    await user.tab();
    for (let i = 0; i < 5 && document.activeElement?.textContent !== 'Retry'; i += 1) await user.tab();
    expect(screen.getByRole('button', { name: 'Retry' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(onAction).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(screen.queryByText('Payment Failed')).not.toBeInTheDocument());
  });

  it('shows no action button on a toast without one', () => {
    render(<Toaster />);
    act(() => {
      toast({ title: 'Settings Saved', description: 'Your settings have been updated successfully.' });
    });
    expect(screen.getByText('Settings Saved')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    expect(screen.getAllByRole('button').map((b) => b.getAttribute('aria-label'))).toEqual(['Close']);
  });
});
