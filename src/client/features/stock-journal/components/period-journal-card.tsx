import { ExternalLink, Send, TriangleAlert } from 'lucide-react';
import { useState } from 'react';
import {
  canPostJournal,
  getDefaultJournalDate,
  getJournalId,
  getJournalXeroUrl,
  getManualJournalsXeroUrl,
} from '@/shared/stock-journal';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Spinner } from '@/client/components/ui/spinner';
import {
  formatInvoiceCount,
  formatPeriodMoney,
  getJournalStatusBadge,
  getPostButtonLabel,
  JOURNAL_STATUS_UNCLEAR_WARNING,
} from '../utils/messages';
import { getPartAmount, type JournalPart } from '../utils/periods';
import { JournalStatusBadge } from './journal-status-badge';

interface PartProps {
  part: JournalPart;
  marginRate: number;
  isPosting: boolean;
  /** Another period is being posted: one post at a time. */
  isBusy: boolean;
  onPost: (part: JournalPart, journalDate: string) => void;
}

function JournalPartRow({ part, marginRate, isPosting, isBusy, onPost }: PartProps) {
  const { period, entry, status } = part;
  const [journalDate, setJournalDate] = useState(() => getDefaultJournalDate(period));
  const journalId = getJournalId(entry);
  const badge = getJournalStatusBadge(status);
  const canPost = canPostJournal({ isPosting, entry, netTotal: period.netTotal }) && !isBusy;
  const label = getPostButtonLabel({ isPosting, entry, isSubPeriod: period.isSubPeriod });
  const amount = getPartAmount(part, marginRate);
  const idBase = `journal-${period.key}`;

  return (
    <section
      aria-label={`Journal for ${period.formattedRange}`}
      className="grid gap-3 rounded-lg border border-border p-4"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0">
          <p className="text-sm font-medium">{period.formattedRange}</p>
          <p className="text-xs text-muted-foreground">
            Net sales {formatPeriodMoney(period.netTotal)} · {formatInvoiceCount(period.invoiceCount)}
          </p>
        </div>
        <JournalStatusBadge label={badge.label} tone={badge.tone} />
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        <div className="grid gap-1.5">
          <Label htmlFor={`${idBase}-date`}>Journal Date</Label>
          <Input
            id={`${idBase}-date`}
            type="date"
            value={journalDate}
            min={period.periodStart}
            max={period.periodEnd}
            disabled={journalId !== null}
            onChange={(e) => setJournalDate(e.target.value || getDefaultJournalDate(period))}
          />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor={`${idBase}-amount`}>Amount</Label>
          <Input
            id={`${idBase}-amount`}
            readOnly
            value={formatPeriodMoney(amount)}
            className="bg-muted/50 tabular-nums"
          />
        </div>
      </div>
      {status === 'unclear' ? (
        <Alert variant="destructive">
          <TriangleAlert aria-hidden />
          <div>
            <AlertTitle>{JOURNAL_STATUS_UNCLEAR_WARNING.title}</AlertTitle>
            <AlertDescription>
              {JOURNAL_STATUS_UNCLEAR_WARNING.description}{' '}
              <a
                href={journalId ? getJournalXeroUrl(journalId, status) : getManualJournalsXeroUrl()}
                target="_blank"
                rel="noopener noreferrer"
                className="font-medium underline underline-offset-2"
              >
                {JOURNAL_STATUS_UNCLEAR_WARNING.linkLabel}
              </a>
            </AlertDescription>
          </div>
        </Alert>
      ) : null}
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:items-center sm:justify-end">
        {journalId ? (
          <Button variant="outline" asChild>
            <a href={getJournalXeroUrl(journalId, status)} target="_blank" rel="noopener noreferrer">
              <ExternalLink aria-hidden />
              View in Xero
            </a>
          </Button>
        ) : null}
        <Button onClick={() => onPost(part, journalDate)} disabled={!canPost}>
          {isPosting ? <Spinner className="size-4 text-current" label="Posting" /> : <Send aria-hidden />}
          {label}
        </Button>
      </div>
    </section>
  );
}

/**
 * The Stock Journal card of an expanded week (docs/product/features.md §2): one row per journal period, two
 * for a week split at a month end.
 */
export function PeriodJournalCard({
  parts,
  marginRate,
  postingKey,
  onPost,
}: {
  parts: JournalPart[];
  marginRate: number;
  postingKey: string | null;
  onPost: (part: JournalPart, journalDate: string) => void;
}) {
  const isSplit = parts.length > 1;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Stock Journal</CardTitle>
        <CardDescription>
          {isSplit
            ? 'This week spans two months, so each month gets its own journal.'
            : 'Debits cost of sales and credits stock with net sales ÷ margin rate.'}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        {parts.map((part) => (
          <JournalPartRow
            key={part.period.key}
            part={part}
            marginRate={marginRate}
            isPosting={postingKey === part.period.key}
            isBusy={postingKey !== null && postingKey !== part.period.key}
            onPost={onPost}
          />
        ))}
      </CardContent>
    </Card>
  );
}
