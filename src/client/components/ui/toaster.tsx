import { Toast } from 'radix-ui';
import { AlertTriangle, CheckCircle2, Info, X, XCircle } from 'lucide-react';
import { useSyncExternalStore } from 'react';
import {
  dismissToast,
  getToasts,
  subscribeToasts,
  TOAST_DEFAULT_DURATION_MS,
  TOAST_SWIPE_THRESHOLD,
  type ToastVariant,
} from '@/client/lib/toast';
import { cn } from '@/client/lib/utils';
import { Button } from './button';

const variantStyle: Record<ToastVariant, string> = {
  default: 'border-border bg-card text-card-foreground',
  success: 'border-border bg-card text-card-foreground',
  info: 'border-border bg-card text-card-foreground',
  warning: 'border-warning/50 bg-warning-soft text-warning-foreground',
  destructive: 'border-destructive/40 bg-destructive-soft text-destructive',
};

function VariantIcon({ variant }: { variant: ToastVariant }) {
  const cls = 'mt-0.5 size-5 shrink-0';
  switch (variant) {
    case 'success':
      return <CheckCircle2 aria-hidden className={cn(cls, 'text-success')} />;
    case 'warning':
      return <AlertTriangle aria-hidden className={cls} />;
    case 'destructive':
      return <XCircle aria-hidden className={cls} />;
    case 'info':
      return <Info aria-hidden className={cn(cls, 'text-primary')} />;
    default:
      return null;
  }
}

/**
 * The toast area: at most one toast at a time, 5 s by default, swipe threshold 50 (docs/product/shell.md §9).
 */
export function Toaster() {
  const toasts = useSyncExternalStore(subscribeToasts, getToasts, getToasts);
  return (
    <Toast.Provider
      duration={TOAST_DEFAULT_DURATION_MS}
      swipeThreshold={TOAST_SWIPE_THRESHOLD}
      swipeDirection="right"
    >
      {toasts.map((t) => (
        <Toast.Root
          key={t.id}
          open={t.open}
          duration={t.duration}
          type={t.variant === 'destructive' ? 'foreground' : 'background'}
          onOpenChange={(open) => {
            if (!open) dismissToast(t.id);
          }}
          className={cn(
            'toast-root pointer-events-auto relative flex w-full items-start gap-3 rounded-xl border p-4 pr-10 shadow-lg',
            variantStyle[t.variant],
          )}
          data-variant={t.variant}
        >
          <VariantIcon variant={t.variant} />
          <div className="grid min-w-0 gap-1">
            <Toast.Title className="text-sm font-semibold">{t.title}</Toast.Title>
            {t.description ? (
              <Toast.Description className="text-sm" data-toast-description="">
                {t.description}
              </Toast.Description>
            ) : null}
            {t.action ? (
              <Toast.Action altText={t.action.altText ?? t.action.label} asChild>
                <Button
                  size="sm"
                  variant="outline"
                  className="mt-1 justify-self-start"
                  onClick={t.action.onAction}
                >
                  {t.action.label}
                </Button>
              </Toast.Action>
            ) : null}
          </div>
          <Toast.Close
            aria-label="Close"
            className="absolute right-2 top-2 rounded-md p-1 opacity-70 hover:bg-muted hover:opacity-100"
          >
            <X aria-hidden className="size-4" />
          </Toast.Close>
        </Toast.Root>
      ))}
      {/* On a phone a toast at the bottom covered what the user was typing into (the CIS Bills entry form
          after "Organization Changed", issue 45 item 4): there it comes down over the header instead. */}
      <Toast.Viewport className="fixed right-0 bottom-0 z-[100] flex w-full max-w-[420px] flex-col gap-2 p-4 outline-none max-sm:top-0 max-sm:bottom-auto max-sm:p-2" />
    </Toast.Provider>
  );
}
