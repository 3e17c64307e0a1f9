import { zodResolver } from '@hookform/resolvers/zod';
import { Copy, QrCode } from 'lucide-react';
import { useForm } from 'react-hook-form';
import { mfaEnableRequestSchema, type MfaEnableRequest, type MfaEnableResponse } from '@/shared/mfa';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { Button } from '@/client/components/ui/button';
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { Spinner } from '@/client/components/ui/spinner';
import { useEnableMfa } from '../api/enable-mfa';
import { useSetupMfa } from '../api/setup-mfa';

/** "JBSWY3DP…" in groups of four, easier to type into an app by hand. */
function groupKey(secret: string): string {
  return secret.replace(/(.{4})/g, '$1 ').trim();
}

/**
 * Setting two-step sign-in up: a button asks the server for a new key (so a page refresh or a second tab
 * never silently replaces the one being scanned), then the QR code, the key as text, and the first code
 * from the app, which turns it on.
 */
export function MfaSetup({
  onEnabled,
  startLabel = 'Set up two-step sign-in',
}: {
  onEnabled: (result: MfaEnableResponse) => void;
  startLabel?: string;
}) {
  const setup = useSetupMfa();
  const enable = useEnableMfa();
  const form = useForm<MfaEnableRequest>({
    resolver: zodResolver(mfaEnableRequestSchema),
    defaultValues: { code: '' },
  });
  const { errors } = form.formState;

  const onSubmit = form.handleSubmit((values) =>
    enable.mutate(values, {
      onSuccess: onEnabled,
      onError: (error) => {
        form.setError('code', { message: getMessage(error, 'Two-step sign-in could not be turned on') });
        form.setFocus('code');
      },
    }),
  );

  if (!setup.data) {
    return (
      <div className="grid gap-2">
        <Button
          type="button"
          className="w-full sm:w-auto sm:justify-self-start"
          disabled={setup.isPending}
          onClick={() =>
            setup.mutate(undefined, {
              onError: (error) =>
                toast({
                  title: 'Set-up failed',
                  description: getMessage(error, 'Two-step sign-in could not be set up'),
                  variant: 'destructive',
                }),
            })
          }
        >
          {setup.isPending ? (
            <Spinner className="size-4 text-current" label="Preparing" />
          ) : (
            <QrCode aria-hidden />
          )}
          {startLabel}
        </Button>
      </div>
    );
  }

  const { qrCode, secret } = setup.data;
  return (
    <div className="grid gap-5">
      <ol className="grid gap-5 text-sm">
        <li className="grid gap-3">
          <p>
            <span className="font-medium">1. Scan this QR code</span> with an authenticator app such as Google
            Authenticator, Microsoft Authenticator or 1Password.
          </p>
          <img
            src={qrCode}
            alt="QR code to add Ledgerlink to your authenticator app"
            width={200}
            height={200}
            className="size-[200px] rounded-lg border border-border bg-white p-2"
          />
          <div className="grid gap-1.5">
            <p className="text-muted-foreground">Cannot scan it? Enter this key in the app instead:</p>
            <div className="flex flex-wrap items-center gap-2">
              <code
                aria-label="Set-up key"
                className="break-all rounded-md bg-muted px-2 py-1 font-mono text-[13px] tracking-wide"
              >
                {groupKey(secret)}
              </code>
              <Button
                type="button"
                variant="ghost"
                size="sm"
                onClick={() =>
                  void navigator.clipboard
                    .writeText(secret)
                    .then(() => toast({ title: 'Key copied', variant: 'success' }))
                    .catch(() =>
                      toast({
                        title: 'Copy failed',
                        description: 'Select the key and copy it instead.',
                        variant: 'destructive',
                      }),
                    )
                }
              >
                <Copy aria-hidden /> Copy key
              </Button>
            </div>
          </div>
        </li>
        <li className="grid gap-3">
          <p>
            <span className="font-medium">2. Enter the 6-digit code</span> the app shows for Ledgerlink.
          </p>
          <form
            className="grid gap-3 sm:max-w-xs"
            noValidate
            onSubmit={(event) => void onSubmit(event)}
            aria-label="Confirm two-step sign-in"
          >
            <FormField label="Code from the app" error={errors.code?.message}>
              <Input
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={7}
                className="font-mono tracking-widest"
                {...form.register('code')}
              />
            </FormField>
            <Button type="submit" disabled={enable.isPending}>
              {enable.isPending ? <Spinner className="size-4 text-current" label="Turning on" /> : null}
              Turn on two-step sign-in
            </Button>
          </form>
        </li>
      </ol>
    </div>
  );
}
