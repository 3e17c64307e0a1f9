import { describe, expect, it, vi } from 'vitest';
import { dismissToast, getToasts, toast } from './toast';

describe('toast store (spec 000 §9)', () => {
  it('shows at most one toast, 5 s by default', () => {
    toast({ title: 'First' });
    toast({ title: 'Second', duration: 6000 });
    const toasts = getToasts();
    expect(toasts).toHaveLength(1);
    expect(toasts[0]).toMatchObject({ title: 'Second', duration: 6000, open: true });
    toast({ title: 'Third' });
    expect(getToasts()[0]?.duration).toBe(5000);
  });

  it('delays a second error toast by 1 s while an error toast is on screen', () => {
    vi.useFakeTimers();
    toast({ title: 'Error one', variant: 'destructive' });
    toast({ title: 'Error two', variant: 'destructive' });
    expect(getToasts().map((t) => t.title)).toEqual(['Error one']);
    vi.advanceTimersByTime(999);
    expect(getToasts().map((t) => t.title)).toEqual(['Error one']);
    vi.advanceTimersByTime(1);
    expect(getToasts().map((t) => t.title)).toEqual(['Error two']);
  });

  it('does not delay an error toast after a non-error one', () => {
    toast({ title: 'Info' });
    toast({ title: 'Error', variant: 'destructive' });
    expect(getToasts().map((t) => t.title)).toEqual(['Error']);
  });

  it('dismiss closes then removes the toast', () => {
    vi.useFakeTimers();
    const id = toast({ title: 'Bye' });
    dismissToast(id);
    expect(getToasts()[0]?.open).toBe(false);
    vi.advanceTimersByTime(400);
    expect(getToasts()).toHaveLength(0);
  });
});

describe('toast actions (issue 33 item 6)', () => {
  it('keeps a toast with an action on screen for 10 s unless told otherwise', () => {
    const onAction = () => undefined;
    toast({ title: 'Payment Failed', action: { label: 'Retry', onAction } });
    expect(getToasts()[0]).toMatchObject({ duration: 10_000, action: { label: 'Retry' } });
    toast({ title: 'Payment Failed', duration: 6000, action: { label: 'Retry', onAction } });
    expect(getToasts()[0]?.duration).toBe(6000);
  });
});
