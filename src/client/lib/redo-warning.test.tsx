import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-client';
import { RedoDeclined, sendWithRedoWarning } from './redo-warning';

const suspect = {
  kind: 'bill' as const,
  xeroId: 'b1',
  createdAt: null,
  message:
    'Xero already has a bill from R. Singh Tiling with reference 3726 for £500.00, created 10 minutes ago',
};
const warning = new ApiError(
  'Xero already has a bill',
  409,
  { message: 'Xero already has a bill', code: 'CONFLICT', redo: [suspect] },
  '/api/xero/create-bills',
);
const words = { title: 'Xero may already have these bills', goOn: 'Create them anyway' };

describe('the redo warning on a screen (issue 44)', () => {
  it('shows what Xero already has and sends the same request again, confirmed, when the person goes on', async () => {
    const sent: boolean[] = [];
    const sending = sendWithRedoWarning((confirmRedo) => {
      sent.push(confirmRedo);
      return confirmRedo ? Promise.resolve('created') : Promise.reject(warning);
    }, words);
    expect(await screen.findByRole('alertdialog', { name: words.title })).toBeTruthy();
    expect(screen.getByText(`${suspect.message}.`)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Create them anyway' }));
    expect(await sending).toBe('created');
    expect(sent).toEqual([false, true]);
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
  });

  it('sends nothing more when the person does not go on', async () => {
    const sent: boolean[] = [];
    const outcome = sendWithRedoWarning((confirmRedo) => {
      sent.push(confirmRedo);
      return Promise.reject(warning);
    }, words).catch((error: unknown) => error);
    await userEvent.click(await screen.findByRole('button', { name: "Don't send" }));
    expect(await outcome).toBeInstanceOf(RedoDeclined);
    expect(sent).toEqual([false]);
  });

  it('passes any other failure on as it came, without a dialog', async () => {
    const refused = new ApiError('Busy', 409, { message: 'Busy', code: 'CONFLICT' }, '/api/xero/payments');
    await expect(sendWithRedoWarning(() => Promise.reject(refused), words)).rejects.toBe(refused);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});
