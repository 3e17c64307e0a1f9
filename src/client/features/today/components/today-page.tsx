import { AlertTriangle, Building2, CheckCircle2, Loader2 } from 'lucide-react';
import { Link } from 'wouter';
import { describeReadingProgress, type TodayRow } from '@/shared/practice';
import { paths } from '@/client/config/paths';
import { getMessage } from '@/client/lib/api-client';
import { useNarrowScreen } from '@/client/lib/narrow-screen';
import { cn } from '@/client/lib/utils';
import { PageHeader } from '@/client/components/layouts/page-header';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { PageSpinner } from '@/client/components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { useToday } from '../api/get-today';
import { useTodayEvents } from '../hooks/use-today-events';
import { describeCells, describeConnection, describeStatus, type Cell } from '../utils/cells';

const TONES: Record<Cell['tone'], string> = {
  none: 'text-muted-foreground',
  muted: 'text-muted-foreground',
  work: 'font-medium text-foreground',
  warning: 'font-medium text-warning-foreground',
  danger: 'font-semibold text-destructive',
  done: 'text-success',
};

/** The short column titles of the wide table; the cards and screen readers get the full labels. */
const COLUMNS: Array<{ key: Cell['key']; title: string }> = [
  { key: 'invoices', title: 'Awaiting payment' },
  { key: 'drafts', title: 'Drafts to approve' },
  { key: 'bills', title: 'Draft CIS bills' },
  { key: 'cis', title: 'CIS return' },
  { key: 'stock', title: 'Weeks to post' },
  { key: 'review', title: 'Needs review' },
];

function Figure({ cell, name }: { cell: Cell; name: string }) {
  const className = cn('tabular-nums', TONES[cell.tone]);
  const detail = cell.detail ? (
    <span aria-hidden className="block text-xs font-normal text-muted-foreground">
      {cell.detail}
    </span>
  ) : null;
  if (!cell.href)
    return (
      <span className={className} title={cell.description}>
        <span aria-hidden>{cell.text}</span>
        <span className="sr-only">{cell.description}</span>
        {detail}
      </span>
    );
  return (
    <>
      <Link
        href={cell.href}
        className={cn(
          className,
          'rounded underline-offset-4 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
        )}
        aria-label={`${name}: ${cell.description}`}
      >
        {cell.text}
      </Link>
      {detail}
    </>
  );
}

function Status({ row }: { row: TodayRow }) {
  const status = describeStatus(row);
  if (!status) return null;
  return (
    <p
      className={cn(
        'mt-0.5 flex items-center gap-1 text-xs',
        row.status === 'failed' ? 'text-destructive' : 'text-muted-foreground',
      )}
    >
      {row.status === 'reading' || row.status === 'waiting' ? (
        <Loader2 aria-hidden className={cn('size-3', row.status === 'reading' && 'animate-spin')} />
      ) : (
        <AlertTriangle aria-hidden className="size-3" />
      )}
      {status}
    </p>
  );
}

function Connection({ row }: { row: TodayRow }) {
  const connection = describeConnection(row);
  const text =
    row.connection.state === 'connected' ? (
      <span className={cn('text-sm', TONES[connection.tone])}>{connection.text}</span>
    ) : (
      <Link
        href={paths.organizations.getHref()}
        className={cn('text-sm underline-offset-4 hover:underline', TONES[connection.tone])}
      >
        {connection.text}
      </Link>
    );
  return (
    <div>
      {text}
      <p className="text-xs text-muted-foreground">{connection.detail}</p>
    </div>
  );
}

function Progress({ rows }: { rows: TodayRow[] }) {
  const progress = describeReadingProgress(rows);
  if (!progress) return null;
  const words = `Reading ${progress.done} of ${progress.total} organisations`;
  return (
    <Card className="mb-4">
      <CardContent className="flex flex-col gap-2 py-4">
        <p className="flex items-center gap-2 text-sm font-medium">
          <Loader2 aria-hidden className="size-4 animate-spin" /> {words}
        </p>
        <div
          role="progressbar"
          aria-label={words}
          aria-valuemin={0}
          aria-valuemax={progress.total}
          aria-valuenow={progress.done}
          className="h-2 w-full overflow-hidden rounded-full bg-muted"
        >
          <div
            className="h-full rounded-full bg-primary transition-[width]"
            style={{ width: `${Math.round((progress.done / Math.max(1, progress.total)) * 100)}%` }}
          />
        </div>
        <p className="text-xs text-muted-foreground">
          A first look reads each organisation from Xero once, within Xero&apos;s limits; your own screens go
          first. From then on this page is answered from what Ledgerlink holds, and kept live.
        </p>
      </CardContent>
    </Card>
  );
}

function WideTable({ rows }: { rows: TodayRow[] }) {
  return (
    <Table aria-label="Organisations, most urgent first">
      <TableHeader>
        <TableRow>
          <TableHead>Organisation</TableHead>
          {COLUMNS.map((c) => (
            <TableHead key={c.key} className={c.key === 'cis' ? '' : 'text-right'}>
              {c.title}
            </TableHead>
          ))}
          <TableHead>Connection</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((row) => {
          const name = row.tenantName ?? 'Unknown Organization';
          const cells = describeCells(row);
          return (
            <TableRow key={row.organizationId} data-organization-id={row.organizationId}>
              <TableCell className="min-w-36 max-w-56">
                <span className="font-medium">{name}</span>
                <Status row={row} />
              </TableCell>
              {COLUMNS.map((column) => {
                const cell = cells.find((c) => c.key === column.key);
                return (
                  <TableCell
                    key={column.key}
                    className={cn('whitespace-nowrap', column.key === 'cis' ? '' : 'text-right')}
                  >
                    {cell ? <Figure cell={cell} name={name} /> : null}
                  </TableCell>
                );
              })}
              <TableCell>
                <Connection row={row} />
              </TableCell>
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}

function RowCards({ rows }: { rows: TodayRow[] }) {
  return (
    <ul className="grid gap-3" aria-label="Organisations, most urgent first">
      {rows.map((row) => {
        const name = row.tenantName ?? 'Unknown Organization';
        return (
          <li key={row.organizationId} data-organization-id={row.organizationId}>
            <Card>
              <CardContent className="py-4">
                <h2 className="font-semibold">{name}</h2>
                <Status row={row} />
                <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 text-sm">
                  {describeCells(row).map((cell) => (
                    <div key={cell.key} className="min-w-0">
                      <dt className="text-xs text-muted-foreground">{cell.label}</dt>
                      <dd>
                        <Figure cell={cell} name={name} />
                      </dd>
                    </div>
                  ))}
                </dl>
                <div className="mt-3 border-t border-border pt-3">
                  <Connection row={row} />
                </div>
              </CardContent>
            </Card>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * Today (issue 47): every organisation the user keeps, one row each, the most urgent first, each figure opening
 * its screen on that organisation. Answered from what Ledgerlink holds; live as the screens are.
 */
export function TodayPage() {
  const today = useToday();
  useTodayEvents(today.isSuccess);
  const narrow = useNarrowScreen();
  const rows = today.data ?? [];
  const calm = rows.length > 0 && rows.every((r) => r.status === 'ready' && r.needsReview === 0);

  return (
    <div>
      <PageHeader
        title="Today"
        description="Every organisation you keep, what needs doing first at the top. Each figure opens its screen on that organisation."
        actions={
          <Button asChild variant="outline">
            <Link href={paths.organizations.getHref()}>
              <Building2 aria-hidden /> Your Xero Organizations
            </Link>
          </Button>
        }
      />
      {today.isLoading ? (
        <PageSpinner label="Loading your organisations" />
      ) : today.isError ? (
        <Alert variant="destructive">
          <AlertTriangle aria-hidden />
          <div>
            <AlertTitle>Could not load Today</AlertTitle>
            <AlertDescription>{getMessage(today.error, 'Please try again')}</AlertDescription>
          </div>
        </Alert>
      ) : rows.length === 0 ? (
        <Card>
          <CardContent className="flex flex-col items-center gap-4 px-6 py-14 text-center">
            <Building2 aria-hidden className="size-8 text-muted-foreground" />
            <h2 className="text-lg font-semibold">No organisations yet</h2>
            <p className="max-w-md text-sm text-muted-foreground">
              Connect your Xero organisations on the Organizations page; each one then has its row here.
            </p>
            <Button asChild>
              <Link href={paths.organizations.getHref()}>Go to Organizations</Link>
            </Button>
          </CardContent>
        </Card>
      ) : (
        <>
          <Progress rows={rows} />
          {calm ? (
            <p className="mb-3 flex items-center gap-2 text-sm text-muted-foreground">
              <CheckCircle2 aria-hidden className="size-4 text-success" /> Every organisation is read and up
              to date.
            </p>
          ) : null}
          {narrow ? <RowCards rows={rows} /> : <WideTable rows={rows} />}
        </>
      )}
    </div>
  );
}
