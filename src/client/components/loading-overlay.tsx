import { Spinner } from '@/client/components/ui/spinner';

/**
 * A full-screen overlay with a message while a long action runs (docs/product/shell.md §2, e.g. "Processing
 * payments...").
 */
export function LoadingOverlay({ message, open = true }: { message: string; open?: boolean }) {
  if (!open) return null;
  return (
    <div
      className="fixed inset-0 z-[90] flex items-center justify-center bg-background/70 backdrop-blur-[2px] animate-fade-in"
      role="alertdialog"
      aria-modal="true"
      aria-busy="true"
      aria-label={message}
    >
      <div className="flex items-center gap-3 rounded-xl border border-border bg-card px-5 py-4 shadow-lg">
        <Spinner className="size-6" label={message} />
        <p className="text-sm font-medium">{message}</p>
      </div>
    </div>
  );
}
