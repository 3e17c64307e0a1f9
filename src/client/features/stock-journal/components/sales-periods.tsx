import { Accordion } from 'radix-ui';
import { ChevronDown } from 'lucide-react';
import { cn } from '@/client/lib/utils';
import { formatInvoiceCount, formatPeriodMoney } from '../utils/messages';
import type { JournalPart, WeekRow } from '../utils/periods';
import { JournalStatusBadge } from './journal-status-badge';
import { PeriodInvoicesCard } from './period-invoices-card';
import { PeriodJournalCard } from './period-journal-card';

const COLUMNS =
  'grid grid-cols-[minmax(0,1fr)_auto] gap-x-3 gap-y-1 md:grid-cols-[minmax(11rem,1.6fr)_6.5rem_repeat(3,minmax(6rem,1fr))_6.5rem]';

/**
 * Weekly periods as an accordion (docs/product/features.md §2): one open at a time, collapsible; Date Range,
 * Count, Gross, VAT, Net and the status badge.
 */
export function SalesPeriods({
  rows,
  openKey,
  onOpenChange,
  marginRate,
  postingKey,
  onPost,
}: {
  rows: WeekRow[];
  openKey: string;
  onOpenChange: (key: string) => void;
  marginRate: number;
  postingKey: string | null;
  onPost: (part: JournalPart, journalDate: string) => void;
}) {
  return (
    <div className="overflow-hidden rounded-xl border border-border">
      <div
        aria-hidden
        className={cn(
          COLUMNS,
          'hidden bg-muted/60 px-4 py-2.5 text-xs font-semibold uppercase tracking-wide text-muted-foreground md:grid',
        )}
      >
        <span>Date Range</span>
        <span>Count</span>
        <span className="text-right">Gross</span>
        <span className="text-right">VAT</span>
        <span className="text-right">Net</span>
        <span className="text-right">Status</span>
      </div>
      <Accordion.Root
        type="single"
        collapsible
        value={openKey}
        onValueChange={onOpenChange}
        className="divide-y divide-border"
      >
        {rows.map((row) => (
          <Accordion.Item key={row.key} value={row.key} className="bg-card">
            <Accordion.Header asChild>
              <h3>
                <Accordion.Trigger
                  className={cn(
                    COLUMNS,
                    'group w-full items-center px-4 py-3 text-left text-sm transition-colors hover:bg-muted/40 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring data-[state=open]:bg-muted/40',
                  )}
                >
                  <span className="flex min-w-0 items-center gap-2 font-medium">
                    <ChevronDown
                      aria-hidden
                      className="size-4 shrink-0 text-muted-foreground transition-transform group-data-[state=open]:rotate-180"
                    />
                    <span className="md:truncate">{row.week.formattedRange}</span>
                  </span>
                  <span className="justify-self-end md:justify-self-start md:order-none">
                    <span className="md:hidden">
                      <JournalStatusBadge label={row.badge.label} tone={row.badge.tone} />
                    </span>
                    <span className="hidden text-muted-foreground md:inline">
                      {formatInvoiceCount(row.week.invoiceCount)}
                    </span>
                  </span>
                  <span className="col-span-2 flex flex-wrap gap-x-4 pl-6 text-xs text-muted-foreground tabular-nums md:hidden">
                    <span>{formatInvoiceCount(row.week.invoiceCount)}</span>
                    <span>Gross {formatPeriodMoney(row.week.grossTotal)}</span>
                    <span>VAT {formatPeriodMoney(row.week.vatTotal)}</span>
                    <span className="font-medium text-foreground">
                      Net {formatPeriodMoney(row.week.netTotal)}
                    </span>
                  </span>
                  <span className="hidden text-right tabular-nums md:block">
                    {formatPeriodMoney(row.week.grossTotal)}
                  </span>
                  <span className="hidden text-right tabular-nums md:block">
                    {formatPeriodMoney(row.week.vatTotal)}
                  </span>
                  <span className="hidden text-right font-medium tabular-nums md:block">
                    {formatPeriodMoney(row.week.netTotal)}
                  </span>
                  <span className="hidden justify-self-end md:block">
                    <JournalStatusBadge label={row.badge.label} tone={row.badge.tone} />
                  </span>
                </Accordion.Trigger>
              </h3>
            </Accordion.Header>
            <Accordion.Content className="border-t border-border bg-background/60 p-3 sm:p-4">
              <div className="grid grid-cols-[minmax(0,1fr)] items-start gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
                <PeriodJournalCard
                  parts={row.parts}
                  marginRate={marginRate}
                  postingKey={postingKey}
                  onPost={onPost}
                />
                <PeriodInvoicesCard week={row.week} />
              </div>
            </Accordion.Content>
          </Accordion.Item>
        ))}
      </Accordion.Root>
    </div>
  );
}
