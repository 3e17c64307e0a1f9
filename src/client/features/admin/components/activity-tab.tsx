import { formatCount } from '@/shared/counts';
import { Download, RotateCcw } from 'lucide-react';
import { useMemo, useState, type ReactNode } from 'react';
import { AUDIT_MAX_LIMIT, type AuditEntry, type AuditFilters } from '@/shared/admin';
import { getOrganizationName } from '@/shared/organizations';
import { getMessage } from '@/client/lib/api-client';
import { Badge } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/client/components/ui/select';
import { Spinner } from '@/client/components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { useAdminOrganizations } from '../api/get-admin-organizations';
import { useAdminUsers } from '../api/get-admin-users';
import { AUDIT_PAGE_SIZE, getAuditCsvHref, useAuditLog } from '../api/get-audit-log';

const ALL = 'all';

/** Kinds of activity, by the prefix of their action name. */
const ACTION_KINDS: Array<[prefix: string, label: string]> = [
  ['user.', 'Sign-in and accounts'],
  ['xero.', 'Xero connections'],
  ['organization.', 'Organization choice'],
  ['admin.', 'Administration'],
  ['settings.', 'Settings and maintenance'],
  ['payment.', 'Payments'],
  ['add-invoices.', 'Add Invoices'],
  ['cis-bills.', 'CIS Bills'],
  ['cis-returns.', 'CIS Returns'],
  ['stock-journal.', 'Stock Journal'],
];

const when = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });

function Filter({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      {children}
    </div>
  );
}

/** Activity (beyond the spec): the audit log with filters and a CSV export of the same selection. */
export function ActivityTab() {
  const [filters, setFilters] = useState<AuditFilters>({});
  const [limit, setLimit] = useState(AUDIT_PAGE_SIZE);
  const log = useAuditLog(filters, limit, true);
  const users = useAdminUsers(true);
  const organizations = useAdminOrganizations(true);
  const orgNames = useMemo(
    () => new Map((organizations.data ?? []).map((o) => [o.id, getOrganizationName(o)])),
    [organizations.data],
  );
  const userNames = useMemo(() => new Map((users.data ?? []).map((u) => [u.id, u.username])), [users.data]);
  const userName = (entry: AuditEntry) =>
    entry.username ?? (entry.userId ? (userNames.get(entry.userId) ?? `User #${entry.userId}`) : '—');
  const entries = log.data ?? [];
  const set = (next: Partial<AuditFilters>) => {
    setFilters((f) => ({ ...f, ...next }));
    setLimit(AUDIT_PAGE_SIZE);
  };
  const hasMore = entries.length >= limit && limit < AUDIT_MAX_LIMIT;
  const filtered = Object.values(filters).some((v) => v !== undefined && v !== '');

  return (
    <Card>
      <CardHeader className="flex-col items-stretch gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <CardTitle>Activity</CardTitle>
          <CardDescription className="mt-1">
            Sign-ins, connections, administration, settings changes and every money write, newest first. The
            log cannot be edited.
          </CardDescription>
        </div>
        <Button variant="outline" size="sm" className="shrink-0 self-start" asChild>
          <a href={getAuditCsvHref(filters)} download>
            <Download aria-hidden /> Export CSV
          </a>
        </Button>
      </CardHeader>
      <CardContent className="grid gap-4">
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5">
          <Filter id="activity-action" label="Action">
            <Select
              value={filters.action ?? ALL}
              onValueChange={(v) => set({ action: v === ALL ? undefined : v })}
            >
              <SelectTrigger id="activity-action">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value={ALL}>All activity</SelectItem>
                {ACTION_KINDS.map(([prefix, label]) => (
                  <SelectItem key={prefix} value={prefix}>
                    {label}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </Filter>
          <Filter id="activity-user" label="User">
            <Select
              value={filters.userId ? String(filters.userId) : ALL}
              onValueChange={(v) => set({ userId: v === ALL ? undefined : Number(v) })}
            >
              <SelectTrigger id="activity-user">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value={ALL}>All users</SelectItem>
                {(users.data ?? []).map((u) => (
                  <SelectItem key={u.id} value={String(u.id)}>
                    {u.username}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </Filter>
          <Filter id="activity-organization" label="Organization">
            <Select
              value={filters.organizationId ? String(filters.organizationId) : ALL}
              onValueChange={(v) => set({ organizationId: v === ALL ? undefined : Number(v) })}
            >
              <SelectTrigger id="activity-organization">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value={ALL}>All organizations</SelectItem>
                {(organizations.data ?? []).map((o) => (
                  <SelectItem key={o.id} value={String(o.id)}>
                    {getOrganizationName(o)}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </Filter>
          <Filter id="activity-from" label="From">
            <Input
              id="activity-from"
              type="date"
              value={filters.from ?? ''}
              max={filters.to}
              onChange={(e) => set({ from: e.target.value || undefined })}
            />
          </Filter>
          <Filter id="activity-to" label="To">
            <Input
              id="activity-to"
              type="date"
              value={filters.to ?? ''}
              min={filters.from}
              onChange={(e) => set({ to: e.target.value || undefined })}
            />
          </Filter>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-2 text-sm text-muted-foreground">
          <span>
            {log.isFetching ? (
              <Spinner className="mr-2 size-4 align-middle" label="Loading activity" />
            ) : null}
            {hasMore
              ? `The latest ${entries.length} entries`
              : formatCount(entries.length, 'entry', 'entries')}
          </span>
          {filtered ? (
            <Button
              variant="ghost"
              size="sm"
              onClick={() => {
                setFilters({});
                setLimit(AUDIT_PAGE_SIZE);
              }}
            >
              <RotateCcw aria-hidden /> Clear filters
            </Button>
          ) : null}
        </div>
        {log.isError && !log.data ? (
          <p className="py-6 text-center text-sm text-destructive">
            {getMessage(log.error, 'Could not load the activity log.')}
          </p>
        ) : log.isLoading ? (
          <div className="flex justify-center py-10">
            <Spinner className="size-6" label="Loading activity" />
          </div>
        ) : (
          <Table className="min-w-[48rem] max-sm:block max-sm:min-w-0">
            <TableHeader className="max-sm:hidden">
              <TableRow>
                <TableHead>When</TableHead>
                <TableHead>User</TableHead>
                <TableHead>Organization</TableHead>
                <TableHead>What happened</TableHead>
                <TableHead>Result</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody className="max-sm:block">
              {entries.length === 0 ? (
                <TableRow>
                  <TableCell colSpan={5} className="py-6 text-center text-muted-foreground">
                    No activity matches these filters.
                  </TableCell>
                </TableRow>
              ) : null}
              {entries.map((entry) => {
                return (
                  <TableRow
                    key={entry.id}
                    className="max-sm:flex max-sm:flex-wrap max-sm:items-center max-sm:gap-x-2 max-sm:gap-y-1 max-sm:px-3 max-sm:py-3"
                  >
                    <TableCell className="whitespace-nowrap tabular max-sm:basis-full max-sm:p-0 max-sm:text-xs max-sm:text-muted-foreground">
                      {when.format(new Date(entry.at))}
                    </TableCell>
                    <TableCell className="max-sm:order-3 max-sm:p-0 max-sm:text-sm">
                      {userName(entry)}
                    </TableCell>
                    <TableCell className="max-sm:order-4 max-sm:p-0 max-sm:text-sm max-sm:text-muted-foreground">
                      {entry.organizationId
                        ? (entry.organizationName ??
                          orgNames.get(entry.organizationId) ??
                          `#${entry.organizationId}`)
                        : '—'}
                    </TableCell>
                    {/* The line in words, by its action's describer on the server (issue 45 item 3); the codes,
                        ids and pence stay in the CSV's last columns. */}
                    <TableCell
                      className="max-w-[32rem] text-sm break-words max-sm:order-1 max-sm:max-w-none max-sm:basis-full max-sm:p-0"
                      data-action={entry.action}
                    >
                      {entry.description}
                    </TableCell>
                    <TableCell className="max-sm:order-5 max-sm:ml-auto max-sm:p-0">
                      <Badge variant={entry.result === 'success' ? 'success' : 'destructive'}>
                        {entry.result === 'success' ? 'Success' : 'Failure'}
                      </Badge>
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        )}
        {hasMore ? (
          <Button
            variant="outline"
            className="justify-self-center"
            disabled={log.isFetching}
            onClick={() => setLimit((l) => Math.min(AUDIT_MAX_LIMIT, l + AUDIT_PAGE_SIZE))}
          >
            Show more
          </Button>
        ) : null}
      </CardContent>
    </Card>
  );
}
