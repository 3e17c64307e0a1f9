import { KeyRound } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { formatDateMedium } from '@/shared/dates';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Checkbox } from '@/client/components/ui/checkbox';
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Spinner } from '@/client/components/ui/spinner';
import { getMessage } from '@/client/lib/api-client';
import { useUser } from '@/client/lib/auth';
import { useHmrcSetup, useSaveHmrcSetup } from '@/client/lib/hmrc';
import { toast } from '@/client/lib/toast';

const ENDPOINT_WORDS = {
  sandbox: "the demo's built-in HMRC",
  test: "HMRC's test service",
  live: 'HMRC',
  custom: 'the Transaction Engine this server names',
} as const;

/**
 * Settings → HMRC filing (issue 43): the contractor's Government Gateway user ID and password for this
 * organisation (kept encrypted; never shown again once saved), and the deadline reminder by email.
 */
export function HmrcSettingsCard({ orgId }: { orgId: number }) {
  const setup = useHmrcSetup(orgId);
  const save = useSaveHmrcSetup(orgId);
  const user = useUser();
  const isAdmin = Boolean(user.data?.isAdmin);
  const [userId, setUserId] = useState('');
  const [password, setPassword] = useState('');
  const [reminderEmail, setReminderEmail] = useState<string | null>(null);
  const data = setup.data;
  const email = reminderEmail ?? data?.reminderEmail ?? '';

  function saveCredentials(event: FormEvent) {
    event.preventDefault();
    save.credentials.mutate(
      { userId, password },
      {
        onSuccess: () => {
          setUserId('');
          setPassword('');
          toast({
            title: 'HMRC credentials saved',
            description: 'Kept encrypted; never shown again.',
            variant: 'success',
          });
        },
        onError: (error) =>
          toast({
            title: 'Not saved',
            description: getMessage(error, 'Please try again'),
            variant: 'destructive',
          }),
      },
    );
  }
  function saveReminders(enabled: boolean) {
    save.reminders.mutate(
      { enabled, email: email || null },
      {
        onSuccess: () => toast({ title: enabled ? 'Reminder on' : 'Reminder off', variant: 'success' }),
        onError: (error) =>
          toast({
            title: 'Not saved',
            description: getMessage(error, 'Please try again'),
            variant: 'destructive',
          }),
      },
    );
  }

  return (
    <Card className="mt-6">
      <CardHeader>
        <CardTitle>HMRC filing</CardTitle>
        <CardDescription>
          {data?.endpoint
            ? `Returns and verifications go to ${ENDPOINT_WORDS[data.endpoint]}${data.gatewayTest ? ' as test submissions' : ''}.`
            : 'Filing with HMRC is not set up on this server (HMRC_ENDPOINT).'}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        {setup.isLoading ? <Spinner /> : null}
        {data ? (
          <p className="text-sm">
            {data.configured
              ? `Government Gateway user ${data.userIdHint ?? ''} saved${data.updatedAt ? ` on ${formatDateMedium(data.updatedAt.slice(0, 10))}` : ''}${data.updatedBy ? ` by ${data.updatedBy}` : ''}.`
              : 'No Government Gateway credentials yet.'}
          </p>
        ) : null}
        {isAdmin ? (
          <form className="grid gap-4 sm:grid-cols-2" onSubmit={saveCredentials} noValidate>
            <FormField label="Government Gateway user ID">
              <Input value={userId} onChange={(e) => setUserId(e.target.value)} autoComplete="off" />
            </FormField>
            <FormField label="Government Gateway password">
              <Input
                type="password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                autoComplete="new-password"
              />
            </FormField>
            <div className="flex flex-wrap gap-2 sm:col-span-2">
              <Button type="submit" size="sm" disabled={!userId || !password || save.credentials.isPending}>
                {save.credentials.isPending ? <Spinner /> : <KeyRound aria-hidden />}{' '}
                {data?.configured ? 'Replace credentials' : 'Save credentials'}
              </Button>
              {data?.configured ? (
                <Button
                  type="button"
                  size="sm"
                  variant="ghost"
                  onClick={() => save.remove.mutate()}
                  disabled={save.remove.isPending}
                >
                  Remove
                </Button>
              ) : null}
            </div>
          </form>
        ) : (
          <Alert variant="info">
            <div>
              <AlertTitle>Administrators set the credentials</AlertTitle>
              <AlertDescription>
                Ask an administrator to add or change the Government Gateway user ID and password.
              </AlertDescription>
            </div>
          </Alert>
        )}
        <div className="grid gap-3">
          <div className="flex items-center gap-2 text-sm">
            <Checkbox
              id="hmrc-reminder"
              checked={data?.remindersEnabled ?? false}
              disabled={save.reminders.isPending || !email}
              onCheckedChange={(v) => saveReminders(v === true)}
            />
            <Label htmlFor="hmrc-reminder" className="font-normal">
              Email a reminder 5 days before the 19th while the month's return is not filed
            </Label>
          </div>
          <FormField label="Reminder email address">
            <Input
              type="email"
              value={email}
              onChange={(e) => setReminderEmail(e.target.value)}
              autoComplete="email"
            />
          </FormField>
        </div>
      </CardContent>
    </Card>
  );
}
