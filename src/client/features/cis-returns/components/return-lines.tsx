import { AlertTriangle, FileText, Pencil } from 'lucide-react';
import { describeCisRate, type CisReturn, type CisReturnLine } from '@/shared/cis-returns';

/** "30 %" with what it means under it ("not verified", "gross payment status"), so the column stays narrow. */
function RateCell({ rate }: { rate: number | null }) {
  const [percent, meaning] = describeCisRate(rate).split(' — ');
  return (
    <>
      <span className="whitespace-nowrap">{percent}</span>
      {meaning ? (
        <span className="block text-xs text-muted-foreground">
          <span className="sr-only"> — </span>
          {meaning}
        </span>
      ) : null}
    </>
  );
}
import { formatPounds } from '@/shared/money';
import { Button } from '@/client/components/ui/button';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { cisDownloads } from '../api/get-return';
import { describeRange } from '../utils/months';
import { canMakeStatement } from '../utils/statements';

const NOT_READY = 'Add the missing references first: HMRC asks every statement to carry them';

/** A subcontractor's statement download, or a disabled button saying what it waits for. */
function StatementLink({
  orgId,
  ret,
  line,
  label,
  variant,
}: {
  orgId: number;
  ret: CisReturn;
  line: CisReturnLine;
  label: string | null;
  variant: 'ghost' | 'outline';
}) {
  const name = `Statement for ${line.name} (PDF)`;
  if (!canMakeStatement(ret, line.contactId))
    return (
      <Button size="sm" variant={variant} disabled aria-label={name} title={NOT_READY}>
        <FileText aria-hidden /> {label}
      </Button>
    );
  return (
    <Button asChild size="sm" variant={variant}>
      <a
        href={cisDownloads.statement(orgId, ret.period, line.contactId)}
        download
        aria-label={name}
        title="Statement (PDF)"
      >
        <FileText aria-hidden /> {label}
      </a>
    </Button>
  );
}

/** What the contractor should look at on a subcontractor's line (paid with nothing deducted, not CIS in Xero…). */
function LineFlags({ line }: { line: CisReturnLine }) {
  if (line.flags.length === 0) return null;
  return (
    <ul className="mt-1 grid gap-1" aria-label={`Check before filing: ${line.name}`}>
      {line.flags.map((flag) => (
        <li key={flag.code} className="flex gap-1.5 text-xs font-normal text-warning-foreground">
          <AlertTriangle aria-hidden className="mt-0.5 size-3 shrink-0" />
          <span>{flag.message}</span>
        </li>
      ))}
    </ul>
  );
}

function Missing() {
  return <span className="text-warning-foreground">Missing</span>;
}

function EditRefsButton({
  line,
  onEditRefs,
}: {
  line: CisReturnLine;
  onEditRefs: (l: CisReturnLine) => void;
}) {
  return (
    <Button
      size="sm"
      variant="ghost"
      aria-label={`Edit UTR and verification number of ${line.name}`}
      onClick={() => onEditRefs(line)}
    >
      <Pencil aria-hidden />
    </Button>
  );
}

/** The month's lines as a table: rate, VAT-free gross, materials and deduction per subcontractor, then the totals. */
export function ReturnLinesTable({
  orgId,
  ret,
  onEditRefs,
}: {
  orgId: number;
  ret: CisReturn;
  onEditRefs: (line: CisReturnLine) => void;
}) {
  return (
    <Table aria-label={`Payments to subcontractors, ${describeRange(ret)}`}>
      <TableHeader>
        <TableRow>
          <TableHead>Subcontractor</TableHead>
          <TableHead>UTR</TableHead>
          <TableHead>Verification no.</TableHead>
          <TableHead>Rate</TableHead>
          <TableHead className="text-right">Gross paid (excl. VAT)</TableHead>
          <TableHead className="text-right">Materials</TableHead>
          <TableHead className="text-right">Deducted</TableHead>
          <TableHead>
            <span className="sr-only">Actions</span>
          </TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {ret.lines.map((line) => (
          <TableRow key={line.contactId} data-contact-id={line.contactId}>
            <TableCell className="font-medium">
              {line.name}
              <LineFlags line={line} />
            </TableCell>
            <TableCell className="tabular-nums">{line.utr ?? <Missing />}</TableCell>
            <TableCell className="tabular-nums">
              {line.rate === 30 ? (
                (line.verificationNumber ?? <Missing />)
              ) : (
                <span className="text-muted-foreground">Not needed</span>
              )}
            </TableCell>
            <TableCell>
              <RateCell rate={line.rate} />
            </TableCell>
            <TableCell className="text-right tabular-nums">{formatPounds(line.grossAmount)}</TableCell>
            <TableCell className="text-right tabular-nums">{formatPounds(line.materialsAmount)}</TableCell>
            <TableCell className="text-right tabular-nums">{formatPounds(line.deductionAmount)}</TableCell>
            <TableCell>
              <div className="flex justify-end gap-1">
                <EditRefsButton line={line} onEditRefs={onEditRefs} />
                <StatementLink orgId={orgId} ret={ret} line={line} label={null} variant="ghost" />
              </div>
            </TableCell>
          </TableRow>
        ))}
        <TableRow className="bg-muted/40 font-semibold">
          <TableCell>Total</TableCell>
          <TableCell />
          <TableCell />
          <TableCell />
          <TableCell className="text-right tabular-nums">{formatPounds(ret.totals.grossAmount)}</TableCell>
          <TableCell className="text-right tabular-nums">
            {formatPounds(ret.totals.materialsAmount)}
          </TableCell>
          <TableCell className="text-right tabular-nums">
            {formatPounds(ret.totals.deductionAmount)}
          </TableCell>
          <TableCell />
        </TableRow>
      </TableBody>
    </Table>
  );
}

/** Below `sm` the return's rows are cards (a phone cannot show eight columns). */
export function ReturnLineCards({
  orgId,
  ret,
  onEditRefs,
}: {
  orgId: number;
  ret: CisReturn;
  onEditRefs: (line: CisReturnLine) => void;
}) {
  const figure = (label: string, amount: number) => (
    <div>
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="tabular-nums font-medium">{formatPounds(amount)}</dd>
    </div>
  );
  return (
    <ul className="grid gap-3" aria-label={`Payments to subcontractors, ${describeRange(ret)}`}>
      {ret.lines.map((line) => (
        <li
          key={line.contactId}
          data-contact-id={line.contactId}
          className="rounded-xl border border-border p-3"
        >
          <div className="flex items-start justify-between gap-2">
            <div className="min-w-0">
              <p className="font-medium">{line.name}</p>
              <p className="text-xs text-muted-foreground">
                UTR {line.utr ?? 'missing'}
                {line.rate === 30 ? ` · Verification ${line.verificationNumber ?? 'missing'}` : ''} ·{' '}
                {describeCisRate(line.rate)}
              </p>
              <LineFlags line={line} />
            </div>
            <EditRefsButton line={line} onEditRefs={onEditRefs} />
          </div>
          <dl className="mt-2 grid grid-cols-3 gap-2 text-sm">
            {figure('Gross paid (excl. VAT)', line.grossAmount)}
            {figure('Materials', line.materialsAmount)}
            {figure('Deducted', line.deductionAmount)}
          </dl>
          <div className="mt-3">
            <StatementLink orgId={orgId} ret={ret} line={line} label="Statement" variant="outline" />
          </div>
        </li>
      ))}
      <li className="rounded-xl bg-muted/40 p-3">
        <p className="font-semibold">Total</p>
        <dl className="mt-2 grid grid-cols-3 gap-2 text-sm">
          {figure('Gross paid (excl. VAT)', ret.totals.grossAmount)}
          {figure('Materials', ret.totals.materialsAmount)}
          {figure('Deducted', ret.totals.deductionAmount)}
        </dl>
      </li>
    </ul>
  );
}
