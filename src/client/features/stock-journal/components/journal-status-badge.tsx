import { Badge } from '@/client/components/ui/badge';
import { cn } from '@/client/lib/utils';
import type { BadgeTone } from '../utils/periods';

const VARIANTS = {
  neutral: 'secondary',
  amber: 'warning',
  green: 'success',
  red: 'destructive',
  partial: 'outline',
} as const;

/**
 * A journal status badge (docs/product/features.md §4): 'Unposted' grey, amber 'Draft', green 'Posted', red
 * 'Unclear'; 'Partial' for a half-posted split week.
 */
export function JournalStatusBadge({
  label,
  tone,
  className,
}: {
  label: string;
  tone: BadgeTone;
  className?: string;
}) {
  return (
    <Badge
      variant={VARIANTS[tone]}
      className={cn(tone === 'partial' && 'border-warning text-warning-foreground', className)}
    >
      <span
        aria-hidden
        className={cn(
          'size-1.5 rounded-full',
          tone === 'green' && 'bg-success',
          tone === 'amber' && 'bg-warning',
          tone === 'red' && 'bg-destructive',
          tone === 'neutral' && 'bg-muted-foreground/60',
          tone === 'partial' && 'bg-warning',
        )}
      />
      {label}
    </Badge>
  );
}
