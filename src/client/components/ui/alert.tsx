import { cva, type VariantProps } from 'class-variance-authority';
import type { ComponentProps } from 'react';
import { cn } from '@/client/lib/utils';

const alertVariants = cva(
  'relative flex gap-3 rounded-xl border p-4 text-sm [&>svg]:mt-0.5 [&>svg]:size-4 [&>svg]:shrink-0',
  {
    variants: {
      variant: {
        default: 'border-border bg-card text-card-foreground',
        info: 'border-transparent bg-info-soft text-foreground',
        warning: 'border-transparent bg-warning-soft text-warning-foreground',
        destructive: 'border-destructive/30 bg-destructive-soft text-destructive',
      },
    },
    defaultVariants: { variant: 'default' },
  },
);

export function Alert({
  className,
  variant,
  ...props
}: ComponentProps<'div'> & VariantProps<typeof alertVariants>) {
  return <div role="alert" className={cn(alertVariants({ variant }), className)} {...props} />;
}

/** An alert's title: an h2 under the page's h1, never a skipped level (issue 33 item 10). */
export function AlertTitle({ className, ...props }: ComponentProps<'h2'>) {
  return <h2 className={cn('font-semibold leading-tight', className)} {...props} />;
}

export function AlertDescription({ className, ...props }: ComponentProps<'div'>) {
  return <div className={cn('mt-1 text-sm', className)} {...props} />;
}
