import { Trash2, TriangleAlert } from 'lucide-react';
import { formatPounds, fromPence, sumPence, toPence } from '@/shared/money';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Badge } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { useNarrowScreen } from '@/client/lib/narrow-screen';
import { cn } from '@/client/lib/utils';
import { describeDeduction } from '../utils/bill-entry';
import type { AddedBill } from '../utils/bill-run';
import { CIS_CHECKING_TEXT, CIS_NOT_CHECKED_TEXT } from '../utils/messages';

/** A bill's CIS verification: true, false, or null while its subcontractor's CIS settings are being read. */
export type BillCisVerification = (bill: AddedBill) => boolean | null;

const EMPTY_TEXT = 'No bills added yet. Add a bill using the form above.';

function CisState({
  bill,
  isCisVerified,
  uncheckedIds,
}: {
  bill: AddedBill;
  isCisVerified: BillCisVerification;
  uncheckedIds: ReadonlySet<string>;
}) {
  const verified = isCisVerified(bill);
  if (verified === false)
    return (
      <Badge variant="warning" className="ml-2">
        <TriangleAlert aria-hidden className="size-3" />
        CIS not verified
      </Badge>
    );
  if (verified === null)
    return (
      <span className="ml-2 text-xs text-muted-foreground">
        {uncheckedIds.has(bill.contactId) ? CIS_NOT_CHECKED_TEXT : CIS_CHECKING_TEXT}
      </span>
    );
  return null;
}

/** The note under a bill's deduction: its rate when not 20 %, or that nothing is deducted (issue 42). */
function RateNote({ bill }: { bill: AddedBill }) {
  const note = describeDeduction(bill.cisRate);
  return note ? <span className="block text-xs font-medium text-warning-foreground">{note}</span> : null;
}

/**
 * The bills added so far, with their total, waiting for "Create N Bill(s) in Xero": the gross (labour,
 * materials and VAT), the materials and VAT in it, the deduction at the subcontractor's rate and the amount due.
 */
export function AddedBillsTable(props: {
  bills: AddedBill[];
  isCisVerified: BillCisVerification;
  /** Subcontractors whose CIS settings could not be read. */
  uncheckedIds: ReadonlySet<string>;
  onRemove: (id: string) => void;
  disabled: boolean;
}) {
  // Six columns do not fit a phone (553 px in a 299 px box cut the empty text off): there each bill is a
  // stacked card (issue 33 item 9), as Add Invoices' rows are.
  const isNarrow = useNarrowScreen();
  return isNarrow ? <AddedBillsCards {...props} /> : <AddedBillsGrid {...props} />;
}

function AddedBillsCards({
  bills,
  isCisVerified,
  uncheckedIds,
  onRemove,
  disabled,
}: Parameters<typeof AddedBillsTable>[0]) {
  if (bills.length === 0)
    return (
      <p className="rounded-xl border border-border px-4 py-6 text-center text-sm text-muted-foreground">
        {EMPTY_TEXT}
      </p>
    );
  const total = (pick: (b: AddedBill) => number) =>
    formatPounds(fromPence(sumPence(bills.map((b) => toPence(pick(b))))));
  return (
    <div className="grid gap-2">
      <ul aria-label="Bills to create" className="grid gap-2">
        {bills.map((bill) => (
          <li key={bill.id} className="rounded-xl border border-border p-3 text-sm">
            <div className="flex items-start justify-between gap-2">
              <div className="min-w-0">
                <span className="font-medium break-words">{bill.contactName}</span>
                <CisState bill={bill} isCisVerified={isCisVerified} uncheckedIds={uncheckedIds} />
                <p className="text-muted-foreground tabular-nums">{bill.reference || '—'}</p>
              </div>
              <RemoveBillButton className="shrink-0" bill={bill} onRemove={onRemove} disabled={disabled} />
            </div>
            <dl className="mt-2 grid grid-cols-3 gap-2 text-xs">
              <div>
                <dt className="text-muted-foreground">Gross</dt>
                <dd className="text-sm tabular-nums">{formatPounds(bill.total)}</dd>
              </div>
              <div>
                <dt className="text-muted-foreground">Materials</dt>
                <dd className="text-sm tabular-nums">{formatPounds(bill.materials)}</dd>
              </div>
              <div>
                <dt className="text-muted-foreground">VAT</dt>
                <dd className="text-sm tabular-nums">
                  {bill.vatTreatment === 'standard'
                    ? formatPounds(bill.vatAmount)
                    : bill.vatTreatment === 'none'
                      ? 'No VAT'
                      : 'Reverse charge'}
                </dd>
              </div>
              <div>
                <dt className="text-muted-foreground">CIS ({bill.cisRate ?? 0}%)</dt>
                <dd className="text-sm tabular-nums">{formatPounds(bill.cisDeduction)}</dd>
              </div>
              <div>
                <dt className="text-muted-foreground">Due</dt>
                <dd className="text-sm tabular-nums">{formatPounds(bill.amountDue)}</dd>
              </div>
            </dl>
            <RateNote bill={bill} />
          </li>
        ))}
      </ul>
      <p className="rounded-xl bg-muted/40 px-3 py-2 text-sm font-medium">
        Total {total((b) => b.total)} · CIS {total((b) => b.cisDeduction)} · Due {total((b) => b.amountDue)}
      </p>
    </div>
  );
}

function AddedBillsGrid({
  bills,
  isCisVerified,
  uncheckedIds,
  onRemove,
  disabled,
}: Parameters<typeof AddedBillsTable>[0]) {
  const totals = {
    gross: sumPence(bills.map((b) => toPence(b.total))),
    materials: sumPence(bills.map((b) => toPence(b.materials))),
    vat: sumPence(bills.map((b) => toPence(b.vatAmount))),
    deduction: sumPence(bills.map((b) => toPence(b.cisDeduction))),
    due: sumPence(bills.map((b) => toPence(b.amountDue))),
  };
  return (
    <Table aria-label="Bills to create">
      <TableHeader>
        <TableRow>
          <TableHead>Subcontractor</TableHead>
          <TableHead>Reference</TableHead>
          <TableHead className="text-right">Gross Amount</TableHead>
          <TableHead className="text-right">Materials</TableHead>
          <TableHead className="text-right">VAT</TableHead>
          <TableHead className="text-right">CIS Deduction (20%)</TableHead>
          <TableHead className="text-right">Amount Due (80%)</TableHead>
          <TableHead className="w-12">
            <span className="sr-only">Actions</span>
          </TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {bills.length === 0 ? (
          <TableRow>
            <TableCell colSpan={8} className="py-8 text-center text-muted-foreground">
              {EMPTY_TEXT}
            </TableCell>
          </TableRow>
        ) : (
          <>
            {bills.map((bill) => (
              <TableRow key={bill.id}>
                <TableCell>
                  <span className="font-medium">{bill.contactName}</span>
                  <CisState bill={bill} isCisVerified={isCisVerified} uncheckedIds={uncheckedIds} />
                </TableCell>
                <TableCell className="tabular-nums">{bill.reference || '—'}</TableCell>
                <TableCell className="text-right tabular-nums">{formatPounds(bill.total)}</TableCell>
                <TableCell className="text-right tabular-nums">{formatPounds(bill.materials)}</TableCell>
                <TableCell className="text-right tabular-nums">
                  {formatPounds(bill.vatAmount)}
                  {bill.vatTreatment !== 'standard' ? (
                    <span className="block text-xs text-muted-foreground">
                      {bill.vatTreatment === 'none' ? 'No VAT' : 'Reverse charge'}
                    </span>
                  ) : null}
                </TableCell>
                <TableCell className="text-right tabular-nums">
                  {formatPounds(bill.cisDeduction)}
                  <RateNote bill={bill} />
                </TableCell>
                <TableCell className="text-right tabular-nums">{formatPounds(bill.amountDue)}</TableCell>
                <TableCell>
                  <RemoveBillButton bill={bill} onRemove={onRemove} disabled={disabled} />
                </TableCell>
              </TableRow>
            ))}
            <TableRow className="bg-muted/40 font-medium hover:bg-muted/40">
              <TableCell colSpan={2}>Total</TableCell>
              <TableCell className="text-right tabular-nums">
                {formatPounds(fromPence(totals.gross))}
              </TableCell>
              <TableCell className="text-right tabular-nums">
                {formatPounds(fromPence(totals.materials))}
              </TableCell>
              <TableCell className="text-right tabular-nums">{formatPounds(fromPence(totals.vat))}</TableCell>
              <TableCell className="text-right tabular-nums">
                {formatPounds(fromPence(totals.deduction))}
              </TableCell>
              <TableCell className="text-right tabular-nums">{formatPounds(fromPence(totals.due))}</TableCell>
              <TableCell />
            </TableRow>
          </>
        )}
      </TableBody>
    </Table>
  );
}

/** Bills for subcontractors Xero has no verified CIS rate for: checked before anyone pays them. */
export function UnverifiedBillsAlert({ bills }: { bills: AddedBill[] }) {
  if (bills.length === 0) return null;
  return (
    <Alert variant="warning">
      <TriangleAlert aria-hidden />
      <div>
        <AlertTitle>Check CIS before sending</AlertTitle>
        <AlertDescription>
          {bills.length === 1 ? '1 bill is' : `${bills.length} bills are`} for subcontractors without verified
          CIS settings in Xero (CIS not enabled, or the 30% unverified rate):{' '}
          {[...new Set(bills.map((b) => b.contactName))].join(', ')}. Check their UTR and verification before
          paying.
        </AlertDescription>
      </div>
    </Alert>
  );
}

/** The bin on each added bill, in the table and in the stacked cards of a phone. */
function RemoveBillButton({
  bill,
  onRemove,
  disabled,
  className,
}: {
  bill: Pick<AddedBill, 'id' | 'contactName'>;
  onRemove: (id: string) => void;
  disabled: boolean;
  className?: string;
}) {
  return (
    <Button
      variant="ghost"
      size="icon"
      className={cn('size-8', className)}
      aria-label={`Remove bill for ${bill.contactName}`}
      onClick={() => onRemove(bill.id)}
      disabled={disabled}
    >
      <Trash2 aria-hidden />
    </Button>
  );
}
