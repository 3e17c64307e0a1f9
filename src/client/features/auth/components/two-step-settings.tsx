import { zodResolver } from '@hookform/resolvers/zod';
import { KeyRound, ShieldCheck, ShieldOff } from 'lucide-react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { PASSWORD_MAX_LENGTH } from '@/shared/auth';
import { isRecoveryCode, isTotpCode, MFA_TEXTS, mfaCodeSchema, type MfaStatus } from '@/shared/mfa';
import { getMessage } from '@/client/lib/api-client';
import { useUser } from '@/client/lib/auth';
import { toast } from '@/client/lib/toast';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Badge } from '@/client/components/ui/badge';
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
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { PageSpinner, Spinner } from '@/client/components/ui/spinner';
import { useDisableMfa } from '../api/disable-mfa';
import { useMfaStatus } from '../api/get-mfa-status';
import { useRegenerateRecoveryCodes } from '../api/regenerate-recovery-codes';
import { MfaSetup } from './mfa-setup';
import { RecoveryCodes } from './recovery-codes';

/** Recovery codes running low: below this many, the card says so. */
const FEW_RECOVERY_CODES = 3;

const totpSchema = z.object({ code: mfaCodeSchema.refine(isTotpCode, MFA_TEXTS.codeFormat) });
const anyCodeSchema = z.object({
  code: mfaCodeSchema.refine((v) => isTotpCode(v) || isRecoveryCode(v), MFA_TEXTS.codeFormat),
});
const passwordSchema = z.object({ code: z.string().min(1, 'Enter your password').max(PASSWORD_MAX_LENGTH) });
type ProofForm = { code: string };

/** One field (a code or the password) with its submit button, keyed by kind so each gets its own rules. */
function ProofFields({
  kind,
  submitLabel,
  destructive,
  isPending,
  onSubmit,
}: {
  kind: 'totp' | 'any-code' | 'password';
  submitLabel: string;
  destructive?: boolean;
  isPending: boolean;
  onSubmit: (value: string, fail: (message: string) => void) => void;
}) {
  const schema = kind === 'password' ? passwordSchema : kind === 'totp' ? totpSchema : anyCodeSchema;
  const form = useForm<ProofForm>({ resolver: zodResolver(schema), defaultValues: { code: '' } });
  const submit = form.handleSubmit(({ code }) =>
    onSubmit(code, (message) => {
      form.setError('code', { message });
      form.setFocus('code');
    }),
  );
  const label =
    kind === 'password'
      ? 'Password'
      : kind === 'totp'
        ? 'Code from the app'
        : 'Code from the app, or a recovery code';
  return (
    <form className="grid gap-4" noValidate onSubmit={(event) => void submit(event)}>
      <FormField label={label} error={form.formState.errors.code?.message}>
        {kind === 'password' ? (
          <Input type="password" autoComplete="current-password" {...form.register('code')} />
        ) : (
          <Input
            autoComplete="one-time-code"
            inputMode={kind === 'totp' ? 'numeric' : 'text'}
            autoCapitalize="none"
            spellCheck={false}
            className="font-mono tracking-widest"
            {...form.register('code')}
          />
        )}
      </FormField>
      <DialogFooter>
        <Button type="submit" variant={destructive ? 'destructive' : 'default'} disabled={isPending}>
          {isPending ? <Spinner className="size-4 text-current" label="Working" /> : null}
          {submitLabel}
        </Button>
      </DialogFooter>
    </form>
  );
}

function DisableDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const disable = useDisableMfa();
  const [withPassword, setWithPassword] = useState(false);
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Turn off two-step sign-in</DialogTitle>
          <DialogDescription>
            Your password alone will sign you in again. Confirm with{' '}
            {withPassword ? 'your password' : 'a code from your authenticator app or a recovery code'}.
          </DialogDescription>
        </DialogHeader>
        <ProofFields
          key={withPassword ? 'password' : 'code'}
          kind={withPassword ? 'password' : 'any-code'}
          submitLabel="Turn off"
          destructive
          isPending={disable.isPending}
          onSubmit={(value, fail) =>
            disable.mutate(withPassword ? { password: value } : { code: value }, {
              onSuccess: () => {
                onOpenChange(false);
                toast({ title: 'Two-step sign-in turned off', variant: 'success' });
              },
              onError: (error) => fail(getMessage(error, 'Two-step sign-in could not be turned off')),
            })
          }
        />
        <Button
          type="button"
          variant="link"
          className="h-auto justify-self-start px-0"
          onClick={() => setWithPassword((v) => !v)}
        >
          {withPassword ? 'Use a code instead' : 'Use my password instead'}
        </Button>
      </DialogContent>
    </Dialog>
  );
}

function NewCodesDialog({
  open,
  onOpenChange,
  username,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  username: string;
}) {
  const regenerate = useRegenerateRecoveryCodes();
  const [codes, setCodes] = useState<string[] | null>(null);
  function close(next: boolean) {
    if (!next) setCodes(null);
    onOpenChange(next);
  }
  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent className="max-h-[calc(100dvh-2rem)] overflow-y-auto">
        <DialogHeader>
          <DialogTitle>New recovery codes</DialogTitle>
          <DialogDescription>
            {codes
              ? 'Your old recovery codes no longer work.'
              : 'Ten new codes replace the ones you have; the old codes stop working. Confirm with a code from your authenticator app.'}
          </DialogDescription>
        </DialogHeader>
        {codes ? (
          <RecoveryCodes codes={codes} username={username} doneLabel="Done" onDone={() => close(false)} />
        ) : (
          <ProofFields
            kind="totp"
            submitLabel="Create new codes"
            isPending={regenerate.isPending}
            onSubmit={(code, fail) =>
              regenerate.mutate(
                { code },
                {
                  onSuccess: setCodes,
                  onError: (error) => fail(getMessage(error, 'New recovery codes could not be created')),
                },
              )
            }
          />
        )}
      </DialogContent>
    </Dialog>
  );
}

function StatusBadge({ status }: { status: MfaStatus }) {
  return status.enabled ? <Badge variant="success">On</Badge> : <Badge variant="secondary">Off</Badge>;
}

/** The "Two-step sign-in" section reached from the user menu: set up, recovery codes, turn off. */
export function TwoStepSettings() {
  const { data: user } = useUser();
  const status = useMfaStatus();
  const [newCodes, setNewCodes] = useState<string[] | null>(null);
  const [dialog, setDialog] = useState<'disable' | 'codes' | null>(null);
  const username = user?.username ?? '';

  if (status.isLoading) return <PageSpinner label="Loading two-step sign-in" />;
  if (status.isError || !status.data) {
    return (
      <Alert variant="destructive">
        <div>
          <AlertTitle>Two-step sign-in could not be loaded</AlertTitle>
          <AlertDescription>{getMessage(status.error, 'Please refresh the page.')}</AlertDescription>
        </div>
      </Alert>
    );
  }
  const mfa = status.data;

  return (
    <Card className="max-w-2xl">
      <CardHeader>
        <div className="flex items-center justify-between gap-3">
          <CardTitle className="flex items-center gap-2">
            <ShieldCheck aria-hidden className="size-5 text-primary" /> Authenticator app
          </CardTitle>
          <StatusBadge status={mfa} />
        </div>
        <CardDescription>
          After your password, Ledgerlink asks for a 6-digit code from an app on your phone, so a stolen
          password alone cannot open your Xero data.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-5">
        {newCodes ? (
          <RecoveryCodes
            codes={newCodes}
            username={username}
            doneLabel="Done"
            onDone={() => setNewCodes(null)}
          />
        ) : !mfa.available ? (
          <Alert variant="info">
            <div>
              <AlertTitle>Not needed for your account</AlertTitle>
              <AlertDescription>{MFA_TEXTS.notAvailable}</AlertDescription>
            </div>
          </Alert>
        ) : !mfa.enabled ? (
          <>
            <p className="text-sm text-muted-foreground">
              Turning it on signs you out on your other devices.
            </p>
            <MfaSetup
              onEnabled={(result) => {
                setNewCodes(result.recoveryCodes);
                toast({ title: 'Two-step sign-in turned on', variant: 'success' });
              }}
            />
          </>
        ) : (
          <>
            <div className="flex items-start gap-3 text-sm">
              <KeyRound aria-hidden className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
              <p>
                <span className="font-medium">{mfa.recoveryCodesLeft} of 10 recovery codes left.</span>{' '}
                <span className="text-muted-foreground">
                  {mfa.recoveryCodesLeft <= FEW_RECOVERY_CODES
                    ? 'Create new ones before they run out.'
                    : 'Each signs you in once without your phone.'}
                </span>
              </p>
            </div>
            {mfa.required ? (
              <Alert variant="info">
                <div>
                  <AlertTitle>Required for administrators</AlertTitle>
                  <AlertDescription>{MFA_TEXTS.adminMustKeep}.</AlertDescription>
                </div>
              </Alert>
            ) : null}
            <div className="flex flex-wrap gap-2">
              <Button type="button" variant="outline" onClick={() => setDialog('codes')}>
                <KeyRound aria-hidden /> New recovery codes
              </Button>
              {mfa.required ? null : (
                <Button type="button" variant="outline" onClick={() => setDialog('disable')}>
                  <ShieldOff aria-hidden /> Turn off
                </Button>
              )}
            </div>
          </>
        )}
      </CardContent>
      <DisableDialog
        open={dialog === 'disable'}
        onOpenChange={(open) => setDialog(open ? 'disable' : null)}
      />
      <NewCodesDialog
        open={dialog === 'codes'}
        onOpenChange={(open) => setDialog(open ? 'codes' : null)}
        username={username}
      />
    </Card>
  );
}
