/**
 * The toast store (docs/product/shell.md §3 Toast, §9 Toasts): at most one toast at a time, 5 s by default,
 * and a second error toast arriving while an error toast is on screen is delayed by 1 s so the first can be
 * read.
 */
export type ToastVariant = 'default' | 'success' | 'info' | 'warning' | 'destructive';

/**
 * The next step a toast offers (issue 33 item 6): Undo after a payment, Open Settings when a default is
 * missing, Retry after a failure that may pass. Shown as a button in the toast, reached with Tab or F8 (the
 * toast area's hotkey); pressing it runs `onAction` and closes the toast.
 */
export interface ToastAction {
  label: string;
  onAction: () => void;
  /** What a screen reader announces about the button with the toast, e.g. "Undo the payment on INV-0037". */
  altText?: string;
}

export interface ToastInput {
  title: string;
  description?: string;
  variant?: ToastVariant;
  /** Milliseconds; 5 s by default, 10 s for a toast with an action. */
  duration?: number;
  action?: ToastAction;
}

export interface ToastItem extends ToastInput {
  id: string;
  open: boolean;
  variant: ToastVariant;
  duration: number;
}

export const TOAST_LIMIT = 1;
export const TOAST_DEFAULT_DURATION_MS = 5000;
/** A toast that offers an action stays long enough to reach it (it also waits while hovered or focused). */
export const TOAST_ACTION_DURATION_MS = 10_000;
export const TOAST_SWIPE_THRESHOLD = 50;
export const SECOND_ERROR_TOAST_DELAY_MS = 1000;
/** How long a closed toast stays mounted for its exit animation. */
const REMOVE_DELAY_MS = 300;

type Listener = () => void;

let toasts: ToastItem[] = [];
let counter = 0;
const listeners = new Set<Listener>();

function emit(): void {
  for (const listener of listeners) listener();
}

function setToasts(next: ToastItem[]): void {
  toasts = next;
  emit();
}

export function subscribeToasts(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function getToasts(): ToastItem[] {
  return toasts;
}

function isErrorOnScreen(): boolean {
  return toasts.some((t) => t.open && t.variant === 'destructive');
}

function show(item: ToastItem): void {
  setToasts([item, ...toasts.filter((t) => t.id !== item.id)].slice(0, TOAST_LIMIT));
}

/** Shows a toast and returns its id. */
export function toast(input: ToastInput): string {
  counter += 1;
  const item: ToastItem = {
    ...input,
    id: `toast-${counter}`,
    open: true,
    variant: input.variant ?? 'default',
    duration: input.duration ?? (input.action ? TOAST_ACTION_DURATION_MS : TOAST_DEFAULT_DURATION_MS),
  };
  if (item.variant === 'destructive' && isErrorOnScreen()) {
    setTimeout(() => show(item), SECOND_ERROR_TOAST_DELAY_MS);
  } else {
    show(item);
  }
  return item.id;
}

export function dismissToast(id?: string): void {
  setToasts(toasts.map((t) => (id === undefined || t.id === id ? { ...t, open: false } : t)));
  setTimeout(() => {
    setToasts(toasts.filter((t) => !(!t.open && (id === undefined || t.id === id))));
  }, REMOVE_DELAY_MS);
}

/** Test helper: forget every toast. */
export function resetToasts(): void {
  setToasts([]);
}
