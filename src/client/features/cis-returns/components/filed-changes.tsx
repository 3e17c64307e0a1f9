import { AlertTriangle } from 'lucide-react';
import type { CisReturn, CisReturnChange } from '@/shared/cis-returns';
import { formatDateMedium } from '@/shared/dates';
import { formatPounds } from '@/shared/money';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { useNarrowScreen } from '@/client/lib/narrow-screen';

const KIND_TEXT: Record<CisReturnChange['kind'], string> = {
  added: 'Paid since filing',
  removed: 'Payment removed since filing',
  changed: 'Changed since filing',
};

function Figure({ filed, now }: { filed: number | undefined; now: number | undefined }) {
  if (filed === now) return <span className="tabular-nums">{formatPounds(filed ?? 0)}</span>;
  return (
    <span className="tabular-nums">
      <span className="text-muted-foreground line-through" aria-label={`filed ${formatPounds(filed ?? 0)}`}>
        {formatPounds(filed ?? 0)}
      </span>{' '}
      <span className="font-medium" aria-label={`now ${formatPounds(now ?? 0)}`}>
        {formatPounds(now ?? 0)}
      </span>
    </span>
  );
}

/**
 * "Filed vs changed since" (issue 42): a filed return keeps what was filed; when a payment, a removal or an edit
 * in Xero touched the month afterwards, what changed for each subcontractor, the totals as filed and now, and how
 * HMRC is told of the correction.
 */
export function FiledChanges({ ret }: { ret: CisReturn }) {
  const narrow = useNarrowScreen();
  if (!ret.filing) return null;
  if (!ret.changedSinceFiling)
    return ret.filing.lines ? (
      <p className="text-sm text-muted-foreground">
        The figures below are the ones filed on {formatDateMedium(ret.filing.filedOn)}: nothing in Xero has
        changed them since.
      </p>
    ) : (
      <p className="text-sm text-muted-foreground">
        This month was marked as filed before Ledgerlink kept the figures as filed: the figures below are
        Xero's now.
      </p>
    );
  const filed = ret.filing.totals;
  return (
    <Alert variant="warning">
      <AlertTriangle aria-hidden />
      <div className="grid min-w-0 gap-3">
        <AlertTitle>Changed since it was filed on {formatDateMedium(ret.filing.filedOn)}</AlertTitle>
        <AlertDescription>
          {ret.changes.length === 1
            ? 'One subcontractor’s figures'
            : `${ret.changes.length} subcontractors’ figures`}{' '}
          in Xero no longer match the return as filed
          {filed
            ? `: deductions were ${formatPounds(filed.deductionAmount)} as filed and are ${formatPounds(ret.totals.deductionAmount)} now`
            : ''}
          .
        </AlertDescription>
        {narrow ? (
          <ul className="grid gap-2" aria-label="Changes since the return was filed">
            {ret.changes.map((c) => (
              <li key={c.contactId} className="rounded-lg bg-background/60 p-2">
                <p className="font-medium">
                  {c.name} · {KIND_TEXT[c.kind]}
                </p>
                <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5">
                  <dt>Gross paid</dt>
                  <dd className="text-right">
                    <Figure filed={c.filed?.grossAmount ?? 0} now={c.now?.grossAmount ?? 0} />
                  </dd>
                  <dt>Materials</dt>
                  <dd className="text-right">
                    <Figure filed={c.filed?.materialsAmount ?? 0} now={c.now?.materialsAmount ?? 0} />
                  </dd>
                  <dt>Deducted</dt>
                  <dd className="text-right">
                    <Figure filed={c.filed?.deductionAmount ?? 0} now={c.now?.deductionAmount ?? 0} />
                  </dd>
                </dl>
              </li>
            ))}
          </ul>
        ) : (
          <div className="overflow-x-auto">
            <Table aria-label="Changes since the return was filed">
              <TableHeader>
                <TableRow>
                  <TableHead>Subcontractor</TableHead>
                  <TableHead>What changed</TableHead>
                  <TableHead className="text-right">Gross paid</TableHead>
                  <TableHead className="text-right">Materials</TableHead>
                  <TableHead className="text-right">Deducted</TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {ret.changes.map((c) => (
                  <TableRow key={c.contactId}>
                    <TableCell className="font-medium">{c.name}</TableCell>
                    <TableCell>{KIND_TEXT[c.kind]}</TableCell>
                    <TableCell className="text-right">
                      <Figure filed={c.filed?.grossAmount ?? 0} now={c.now?.grossAmount ?? 0} />
                    </TableCell>
                    <TableCell className="text-right">
                      <Figure filed={c.filed?.materialsAmount ?? 0} now={c.now?.materialsAmount ?? 0} />
                    </TableCell>
                    <TableCell className="text-right">
                      <Figure filed={c.filed?.deductionAmount ?? 0} now={c.now?.deductionAmount ?? 0} />
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </div>
        )}
        {ret.correctionAdvice ? <AlertDescription>{ret.correctionAdvice}</AlertDescription> : null}
      </div>
    </Alert>
  );
}
