import { Check, LockOpen, Pencil, RefreshCw, Search, X } from 'lucide-react';
import { useMemo, useState } from 'react';
import { INVALID_EMAIL_MESSAGE, isValidEmail, type AdminUser, type AdminUserPatch } from '@/shared/admin';
import { PROVIDER_NAME } from '@/shared/connection';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { sleep } from '@/client/lib/utils';
import { Badge, badgeVariants } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/client/components/ui/dialog';
import { Input } from '@/client/components/ui/input';
import { Spinner } from '@/client/components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { cn } from '@/client/lib/utils';
import { useAdminUsers } from '../api/get-admin-users';
import { useSetUserAdmin } from '../api/set-user-admin';
import { useUnlockAdminUser } from '../api/unlock-admin-user';
import { useUpdateAdminUser } from '../api/update-admin-user';

const REFRESH_SPINNER_MS = 500;

interface Draft {
  username: string;
  email: string;
}

/**
 * The fields of an inline edit that differ from the user as loaded (docs/product/shell.md §4: "saving sends
 * only changed fields"). An emptied email is sent as "" (no email).
 */
export function getChangedFields(user: AdminUser, draft: Draft): AdminUserPatch {
  const patch: AdminUserPatch = {};
  const username = draft.username.trim();
  const email = draft.email.trim();
  if (username !== user.username) patch.username = username;
  if (email !== (user.email ?? '')) patch.email = email;
  return patch;
}

/**
 * Users tab (docs/product/shell.md §2 Admin panel): search, the user table, inline edit and the admin confirm
 * dialog.
 */
export function UsersTab({ currentUserId }: { currentUserId: number | undefined }) {
  const users = useAdminUsers(true);
  const update = useUpdateAdminUser();
  const setAdmin = useSetUserAdmin();
  const unlock = useUnlockAdminUser();
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ id: number; draft: Draft } | null>(null);
  const [confirming, setConfirming] = useState<AdminUser | null>(null);
  const [refreshing, setRefreshing] = useState(false);

  const rows = useMemo(() => {
    const text = search.trim().toLowerCase();
    const all = users.data ?? [];
    if (!text) return all;
    return all.filter(
      (u) => u.username.toLowerCase().includes(text) || (u.email ?? '').toLowerCase().includes(text),
    );
  }, [users.data, search]);

  async function refresh() {
    setRefreshing(true);
    try {
      const [result] = await Promise.all([users.refetch(), sleep(REFRESH_SPINNER_MS)]);
      if (result.isError) throw result.error;
      toast({ title: 'Users refreshed', variant: 'success' });
    } catch (error) {
      toast({
        title: 'Failed to refresh users',
        description: getMessage(error, 'Could not load the users.'),
        variant: 'destructive',
      });
    } finally {
      setRefreshing(false);
    }
  }

  function save(user: AdminUser, draft: Draft) {
    const email = draft.email.trim();
    if (email !== '' && !isValidEmail(email)) {
      toast({ title: 'Invalid email format', description: INVALID_EMAIL_MESSAGE, variant: 'destructive' });
      return;
    }
    const patch = getChangedFields(user, draft);
    if (Object.keys(patch).length === 0) {
      toast({ title: 'No changes to save', variant: 'info' });
      return;
    }
    update.mutate(
      { userId: user.id, patch },
      {
        onSuccess: () => {
          setEditing(null);
          toast({ title: 'User updated successfully', variant: 'success' });
        },
        onError: (error) =>
          toast({
            title: 'Failed to update user',
            description: getMessage(error, 'The change was not saved.'),
            variant: 'destructive',
          }),
      },
    );
  }

  /** Lifts a sign-in lock: too many failed sign-ins held the account back for browsers it never signed in from. */
  function unlockUser(user: AdminUser) {
    unlock.mutate(
      { userId: user.id },
      {
        onSuccess: () =>
          toast({
            title: 'Sign-in lock lifted',
            description: `${user.username} can sign in again.`,
            variant: 'success',
          }),
        onError: (error) =>
          toast({
            title: 'Failed to lift the sign-in lock',
            description: getMessage(error, 'The lock was not lifted.'),
            variant: 'destructive',
          }),
      },
    );
  }

  function confirmAdminChange() {
    const user = confirming;
    if (!user) return;
    setConfirming(null);
    setAdmin.mutate(
      { userId: user.id, isAdmin: !user.isAdmin },
      {
        onSuccess: () => toast({ title: 'Admin status updated successfully', variant: 'success' }),
        onError: (error) =>
          toast({
            title: 'Failed to update admin status',
            description: getMessage(error, 'The change was not saved.'),
            variant: 'destructive',
          }),
      },
    );
  }

  return (
    <Card>
      <CardHeader className="gap-3">
        <div className="flex flex-col items-stretch gap-3 sm:flex-row sm:items-start sm:justify-between">
          <div>
            <CardTitle>User Management</CardTitle>
            <CardDescription className="mt-1">
              Edit names and email addresses, and choose who may administer Ledgerlink.
            </CardDescription>
          </div>
          <Button
            variant="outline"
            size="sm"
            className="shrink-0 self-start"
            onClick={() => void refresh()}
            disabled={refreshing}
          >
            {refreshing ? <Spinner className="size-4" label="Refreshing users" /> : <RefreshCw aria-hidden />}
            Refresh
          </Button>
        </div>
        <div className="relative max-w-sm">
          <Search
            aria-hidden
            className="pointer-events-none absolute left-2.5 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
          />
          <Input
            aria-label="Search users"
            placeholder="Search users..."
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            className="pl-8"
          />
        </div>
      </CardHeader>
      <CardContent>
        {users.isLoading ? (
          <div className="flex justify-center py-10">
            <Spinner className="size-6" label="Loading users" />
          </div>
        ) : users.isError && !users.data ? (
          <p className="py-6 text-center text-sm text-destructive">
            {getMessage(users.error, 'Could not load the users.')}
          </p>
        ) : (
          <Table className="min-w-[40rem] max-sm:block max-sm:min-w-0">
            <TableHeader className="max-sm:hidden">
              <TableRow>
                <TableHead>Username</TableHead>
                <TableHead>Email</TableHead>
                <TableHead>Admin</TableHead>
                <TableHead>Xero</TableHead>
                <TableHead className="text-right">Actions</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody className="max-sm:block">
              {rows.length === 0 ? (
                <TableRow>
                  <TableCell colSpan={5} className="py-6 text-center text-muted-foreground">
                    No users match “{search.trim()}”.
                  </TableCell>
                </TableRow>
              ) : null}
              {rows.map((user) => {
                const draft = editing?.id === user.id ? editing.draft : null;
                const setDraft = (next: Partial<Draft>) =>
                  setEditing((e) =>
                    e && e.id === user.id ? { id: e.id, draft: { ...e.draft, ...next } } : e,
                  );
                const saving = update.isPending && update.variables?.userId === user.id;
                return (
                  <TableRow
                    key={user.id}
                    className="max-sm:flex max-sm:flex-wrap max-sm:items-center max-sm:gap-x-2 max-sm:gap-y-1 max-sm:px-3 max-sm:py-3"
                  >
                    <TableCell className="font-medium max-sm:basis-full max-sm:p-0">
                      {draft ? (
                        <Input
                          aria-label={`Username of ${user.username}`}
                          value={draft.username}
                          onChange={(e) => setDraft({ username: e.target.value })}
                          className="h-8 min-w-[9rem]"
                        />
                      ) : (
                        <span>
                          {user.username}
                          {user.id === currentUserId ? (
                            <span className="ml-2 text-xs font-normal text-muted-foreground">(you)</span>
                          ) : null}
                          {user.signInLocked ? (
                            <Badge
                              variant="destructive"
                              className="ml-2"
                              title="Too many failed sign-ins: browsers this user has not signed in from are refused for now"
                            >
                              Sign-in locked
                            </Badge>
                          ) : null}
                        </span>
                      )}
                    </TableCell>
                    <TableCell className="max-sm:basis-full max-sm:p-0 max-sm:text-sm">
                      {draft ? (
                        <Input
                          aria-label={`Email of ${user.username}`}
                          type="email"
                          value={draft.email}
                          placeholder="No email"
                          onChange={(e) => setDraft({ email: e.target.value })}
                          className="h-8 min-w-[12rem]"
                        />
                      ) : (
                        <span className={cn(!user.email && 'text-muted-foreground')}>
                          {user.email ?? '—'}
                        </span>
                      )}
                    </TableCell>
                    <TableCell className="max-sm:p-0">
                      <button
                        type="button"
                        onClick={() => setConfirming(user)}
                        disabled={setAdmin.isPending}
                        aria-label={
                          user.isAdmin
                            ? `Remove admin privileges from ${user.username}`
                            : `Grant admin privileges to ${user.username}`
                        }
                        className={cn(
                          badgeVariants({ variant: user.isAdmin ? 'success' : 'secondary' }),
                          'cursor-pointer hover:opacity-80 focus-visible:outline-2 focus-visible:outline-ring disabled:cursor-wait',
                        )}
                      >
                        {user.isAdmin ? 'Admin' : 'User'}
                      </button>
                    </TableCell>
                    <TableCell className="max-sm:p-0">
                      <Badge variant={user.isXeroUser ? 'default' : 'outline'}>
                        {user.isXeroUser ? PROVIDER_NAME : 'Local'}
                      </Badge>
                    </TableCell>
                    <TableCell className="text-right max-sm:ml-auto max-sm:p-0">
                      {draft ? (
                        <div className="flex justify-end gap-1.5">
                          <Button size="sm" onClick={() => save(user, draft)} disabled={saving}>
                            {saving ? (
                              <Spinner className="size-4 text-current" label="Saving" />
                            ) : (
                              <Check aria-hidden />
                            )}
                            Save
                          </Button>
                          <Button
                            size="sm"
                            variant="ghost"
                            onClick={() => setEditing(null)}
                            disabled={saving}
                          >
                            <X aria-hidden /> Cancel
                          </Button>
                        </div>
                      ) : (
                        <div className="flex justify-end gap-1.5">
                          {user.signInLocked ? (
                            <Button
                              size="sm"
                              variant="outline"
                              aria-label={`Lift the sign-in lock of ${user.username}`}
                              onClick={() => unlockUser(user)}
                              disabled={unlock.isPending && unlock.variables?.userId === user.id}
                            >
                              <LockOpen aria-hidden /> Unlock
                            </Button>
                          ) : null}
                          <Button
                            size="sm"
                            variant="ghost"
                            aria-label={`Edit ${user.username}`}
                            onClick={() =>
                              setEditing({
                                id: user.id,
                                draft: { username: user.username, email: user.email ?? '' },
                              })
                            }
                          >
                            <Pencil aria-hidden /> Edit
                          </Button>
                        </div>
                      )}
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        )}
      </CardContent>

      <Dialog open={confirming !== null} onOpenChange={(open) => (open ? undefined : setConfirming(null))}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>
              {confirming?.isAdmin ? 'Remove Admin Privileges' : 'Grant Admin Privileges'}
            </DialogTitle>
            <DialogDescription>
              {confirming?.isAdmin
                ? `${confirming.username} will no longer be able to switch features on or off, manage users or see the activity log.`
                : `${confirming?.username ?? 'This user'} will be able to switch features on or off for every organization, manage users and see the activity log.`}
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setConfirming(null)}>
              Cancel
            </Button>
            <Button variant={confirming?.isAdmin ? 'destructive' : 'default'} onClick={confirmAdminChange}>
              Confirm
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Card>
  );
}
